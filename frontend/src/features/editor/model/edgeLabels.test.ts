import { describe, expect, it } from 'vitest';
import qa from '../__fixtures__/program_qa.json';
import { documentToGraph, moduleName } from './graph';
import { edgeAriaLabel, labelEdges, namesById } from './edgeLabels';

describe('edge labels', () => {
  it('names each connection by the modules it joins, not by node ids', () => {
    const { nodes, edges } = documentToGraph(qa);
    const labelled = labelEdges(edges, namesById(nodes));
    const byId = new Map(nodes.map((n) => [n.id, moduleName(n)]));
    expect(labelled.map((e) => e.ariaLabel)).toEqual(
      edges.map((e) => `Connection from ${byId.get(e.source)} to ${byId.get(e.target)}`),
    );
    for (const edge of labelled) expect(edge.ariaLabel).not.toMatch(/-\d+ to|to \w+-/);
  });

  it('keeps an edge whose label is already right, and renames after a module rename', () => {
    const names = new Map([
      ['a', 'input_layer'],
      ['b', 'generator'],
    ]);
    const [edge] = labelEdges([{ id: 'e', source: 'a', target: 'b' }], names);
    expect(labelEdges([edge!], names)[0]).toBe(edge);
    names.set('b', 'answerer');
    expect(labelEdges([edge!], names)[0]?.ariaLabel).toBe(
      'Connection from input_layer to answerer',
    );
    expect(edgeAriaLabel({ source: 'a', target: 'gone' }, names)).toBe(
      'Connection from input_layer to gone',
    );
  });
});
