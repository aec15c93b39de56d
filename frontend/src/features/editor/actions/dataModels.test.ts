import { describe, expect, it } from 'vitest';
import { ownDataModel } from '../model/graph';
import { toJsonSchema } from '@/lib/datamodel/schema';
import type { SavedDataModel } from '../model/document';
import multi from '../__fixtures__/program_multi.json';
import { deleteDataModel, saveDataModel } from './dataModels';
import { loadDocument } from './loadDocument';
import { apply, makeState, reason } from './testing';

const answer2: SavedDataModel = {
  name: 'Answer',
  class: 'ignored',
  schema: toJsonSchema({
    name: 'Answer',
    fields: [
      { name: 'answer', type: { kind: 'string' }, required: true },
      { name: 'confidence', type: { kind: 'number' }, required: false, default: 0.5 },
    ],
  }),
};

describe('data model library', () => {
  it('updates every module using a model when it is saved', () => {
    const state = makeState('qa');
    const next = apply(state, saveDataModel, { model: answer2 });
    expect(next.dataModels.find((m) => m.name === 'Answer')?.schema).toEqual(answer2.schema);
    for (const node of next.nodes.slice(1))
      expect(ownDataModel(node!)?.schema).toEqual(answer2.schema);
    // Editor models get a class path that never imports, so the engine rebuilds them from the schema.
    expect(next.dataModels.find((m) => m.name === 'Answer')?.class).toBe('studio_editor.Answer');
  });

  it('renames a model and the modules follow', () => {
    const state = makeState('qa');
    const renamed = { ...answer2, name: 'Reply', schema: { ...answer2.schema, title: 'Reply' } };
    const next = apply(state, saveDataModel, { model: renamed, previousName: 'Answer' });
    expect(next.dataModels.map((m) => m.name)).toEqual(['Query', 'Reply']);
    expect(ownDataModel(next.nodes[1]!)?.name).toBe('Reply');
    expect(
      reason(next, saveDataModel, { model: { ...renamed, name: 'Query' }, previousName: 'Reply' }),
    ).toBe("A data model named 'Query' already exists.");
  });

  it('will not delete a model a module uses', () => {
    const state = makeState('qa');
    expect(reason(state, deleteDataModel, { name: 'Answer' })).toBe(
      "'Answer' is used by 'generator', 'chain_of_thought'; give them another model first.",
    );
    const next = apply(makeState(), deleteDataModel, { name: 'Answer' });
    expect(next.dataModels.map((m) => m.name)).toEqual(['Query']);
  });
});

describe('nested models', () => {
  it('rebuilds models (and modules) that nest a model saved again', () => {
    const state = apply(makeState(), loadDocument, { document: multi });
    const source = state.dataModels.find((m) => m.name === 'Source')!;
    const properties = {
      ...(source.schema.properties as object),
      lang: { title: 'Lang', type: 'string' },
    };
    const next = apply(state, saveDataModel, {
      model: { ...source, schema: { ...source.schema, properties, required: ['url', 'lang'] } },
    });
    const report = next.dataModels.find((m) => m.name === 'Report')!;
    const nested = (report.schema.$defs as Record<string, { required: string[] }>).Source;
    expect(nested?.required).toEqual(['url', 'lang']);
    const reporter = next.nodes.find((n) => n.data.config.name === 'reporter')!;
    expect(ownDataModel(reporter!)?.schema).toEqual(report.schema);
    expect(
      reason(next, saveDataModel, { model: { ...source, name: 'Origin' }, previousName: 'Source' }),
    ).toBe("'Source' is nested in Report; rename it there first.");
  });
});
