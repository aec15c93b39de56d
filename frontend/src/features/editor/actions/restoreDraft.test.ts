import { describe, expect, it } from 'vitest';
import { canonicalGraph } from '../model/draft';
import { moduleName, ownDataModel } from '../model/graph';
import { addNode } from './addNode';
import { restoreDraft } from './restoreDraft';
import { apply, makeState } from './testing';

describe('restoreDraft', () => {
  it('puts the draft back as it was, with its data models in the library', () => {
    let edited = apply(makeState('qa'), addNode, { kind: 'Generator' });
    edited = { ...edited, meta: { ...edited.meta, description: 'typed before the reload' } };
    const draft = JSON.parse(JSON.stringify({ ...edited, dataModels: undefined }));
    const restored = apply(makeState(), restoreDraft, { graph: draft });
    expect(canonicalGraph(restored)).toBe(canonicalGraph(edited));
    expect(restored.nodes.map(moduleName)).toEqual(edited.nodes.map(moduleName));
    expect(restored.meta.description).toBe('typed before the reload');
    expect(restored.nodes.some((n) => n.selected)).toBe(false);
    const library = restored.dataModels.map((m) => m.name);
    for (const node of restored.nodes) expect(library).toContain(ownDataModel(node)?.name);
  });
});
