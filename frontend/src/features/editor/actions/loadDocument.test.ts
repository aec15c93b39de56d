import { describe, expect, it } from 'vitest';
import multi from '../__fixtures__/program_multi.json';
import { graphToDocument } from '../model/graph';
import { loadDocument, newProgram, splitProgramFile } from './loadDocument';
import { apply, makeState, reason } from './testing';

describe('loadDocument', () => {
  it('opens an exported file and saves it back identical, layout apart', () => {
    const layout = { version: 1, nodes: { question: { x: 1, y: 2 } } };
    const file = JSON.parse(JSON.stringify({ ...multi, layout }));
    const { document, layout: read } = splitProgramFile(file);
    const state = apply(makeState(), loadDocument, { document, layout: read });
    expect(state.nodes[0]?.position).toEqual({ x: 1, y: 2 });
    const saved = graphToDocument(state);
    expect(JSON.stringify(saved.document)).toBe(JSON.stringify(multi));
    expect(saved.layout.nodes.question).toEqual({ x: 1, y: 2 });
  });

  it('adds the program models, nested ones included, to the library', () => {
    const state = apply(makeState(), loadDocument, { document: multi });
    expect(state.dataModels.map((m) => m.name)).toEqual(['Query', 'Answer', 'Report', 'Source']);
    expect(state.dataModels.find((m) => m.name === 'Source')?.schema).toEqual(
      multi.program.modules[1]!.module.config.data_model!.schema.$defs!.Source,
    );
  });

  it('explains why a file cannot be opened', () => {
    expect(reason(makeState(), loadDocument, { document: [1, 2] })).toBe(
      'Cannot open this program: a program file must hold a JSON object.',
    );
  });

  it('starts a new program, keeping the library', () => {
    const loaded = apply(makeState(), loadDocument, { document: multi });
    const fresh = apply(loaded, newProgram, undefined);
    expect(fresh.meta.name).toBe('my_program');
    expect(fresh.nodes.map((n) => n.data.config.name)).toEqual(['input_layer', 'generator']);
    expect(fresh.edges).toHaveLength(1);
    expect(fresh.meta.compileConfig).toBeNull();
    expect(fresh.dataModels).toBe(loaded.dataModels);
  });
});
