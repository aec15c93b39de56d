import { describe, expect, it } from 'vitest';
import qa from '../__fixtures__/program_qa.json';
import { starterGraph } from './defaults';
import {
  canonicalGraph,
  draftKey,
  draftPrefix,
  draftToOffer,
  parseDraft,
  type Draft,
} from './draft';
import { documentToGraph } from './graph';

const draft = (over: Partial<Draft> = {}): Draft => ({
  programId: 7,
  baseVersion: 3,
  savedAt: 2_000,
  graph: documentToGraph(qa),
  ...over,
});

describe('draft keys', () => {
  it('name the program and the version the draft was based on', () => {
    expect(draftKey(7, 3)).toBe('studio.editor.draft.7.v3');
    expect(draftKey(null, null)).toBe('studio.editor.draft.new.v0');
    expect(draftKey(7, 3).startsWith(draftPrefix(7))).toBe(true);
    // Program 7's prefix does not cover program 70's drafts.
    expect(draftKey(70, 1).startsWith(draftPrefix(7))).toBe(false);
  });
});

describe('canonicalGraph', () => {
  it('is the same for the same program loaded twice (new node ids)', () => {
    expect(canonicalGraph(documentToGraph(qa))).toBe(canonicalGraph(documentToGraph(qa)));
    expect(canonicalGraph(starterGraph())).toBe(canonicalGraph(starterGraph()));
  });

  it('ignores selection, measured sizes and node order, not moves or edits', () => {
    const graph = documentToGraph(qa);
    const base = canonicalGraph(graph);
    const decorated = {
      ...graph,
      nodes: [...graph.nodes]
        .reverse()
        .map((n) => ({ ...n, selected: true, measured: { width: 250, height: 99 } })),
    };
    expect(canonicalGraph(decorated)).toBe(base);
    const [first, ...rest] = graph.nodes;
    const moved = { ...graph, nodes: [{ ...first!, position: { x: 999, y: 0 } }, ...rest] };
    expect(canonicalGraph(moved)).not.toBe(base);
    expect(canonicalGraph({ ...graph, meta: { ...graph.meta, description: 'new' } })).not.toBe(
      base,
    );
    expect(canonicalGraph({ ...graph, edges: graph.edges.slice(1) })).not.toBe(base);
  });
});

describe('parseDraft', () => {
  it('reads back what was written', () => {
    const written = draft();
    expect(parseDraft(JSON.stringify(written))).toEqual(JSON.parse(JSON.stringify(written)));
  });

  it('refuses anything this editor did not write', () => {
    const good = JSON.parse(JSON.stringify(draft()));
    const broken = [
      null,
      '',
      'not json',
      '[]',
      JSON.stringify({ ...good, savedAt: 'yesterday' }),
      JSON.stringify({ ...good, programId: '7' }),
      JSON.stringify({ ...good, graph: { ...good.graph, nodes: [{ id: 'x', type: 'Nope' }] } }),
      JSON.stringify({
        ...good,
        graph: { ...good.graph, edges: [{ id: 'e', source: 'gone', target: 'gone' }] },
      }),
      JSON.stringify({ ...good, graph: { ...good.graph, meta: null } }),
    ];
    for (const text of broken) expect(parseDraft(text)).toBeNull();
  });
});

describe('draftToOffer', () => {
  it('offers a draft written after the opened version was saved', () => {
    expect(draftToOffer(draft({ savedAt: 2_000 }), 1_000)).not.toBeNull();
    expect(draftToOffer(draft({ savedAt: 500 }), 1_000)).toBeNull();
    expect(draftToOffer(null, 1_000)).toBeNull();
  });

  it('offers any draft of a program never saved', () => {
    expect(draftToOffer(draft({ programId: null, baseVersion: null }), null)).not.toBeNull();
  });
});
