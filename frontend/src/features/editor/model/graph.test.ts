import { describe, expect, it } from 'vitest';
import bothJson from '../__fixtures__/program_both_outputs.json';
import multiJson from '../__fixtures__/program_multi.json';
import qaJson from '../__fixtures__/program_qa.json';
import {
  defaultInstructions,
  DocumentError,
  type GeneratorConfig,
  type ProgramDocument,
} from './document';
import { documentToGraph, graphToDocument, moduleName } from './graph';
import { programProblems } from './rules';

const qa = qaJson as unknown as ProgramDocument;
const multi = multiJson as unknown as ProgramDocument;
const both = bothJson as unknown as ProgramDocument;

describe('document <-> graph', () => {
  it.each([
    ['program_qa.json', qa],
    ['program_multi.json', multi],
    ['program_both_outputs.json', both],
  ])('saves %s back exactly as the engine wrote it', (_name, fixture) => {
    const graph = documentToGraph(fixture);
    expect(programProblems(graph)).toEqual([]);
    const { document } = graphToDocument(graph);
    expect(document).toEqual(fixture);
    expect(JSON.stringify(document)).toBe(JSON.stringify(fixture));
  });

  it('reads nodes, edges and variables', () => {
    const graph = documentToGraph(qa);
    expect(graph.nodes.map((n) => [n.type, moduleName(n)])).toEqual([
      ['Input', 'input_layer'],
      ['Generator', 'generator'],
      ['ChainOfThought', 'chain_of_thought'],
    ]);
    expect(graph.edges.map((e) => [e.source, e.target])).toEqual([
      [graph.nodes[0]?.id, graph.nodes[1]?.id],
      [graph.nodes[1]?.id, graph.nodes[2]?.id],
    ]);
    const cot = graph.nodes[2];
    expect(cot?.data.kind === 'ChainOfThought' && cot.data.variable.instructions).toBe(
      'Think first.',
    );
  });

  it('keeps positions in a separate layout, by module name', () => {
    const layout = { version: 1 as const, nodes: { generator: { x: 400, y: 20 } } };
    const graph = documentToGraph(qa, layout);
    expect(graph.nodes[1]?.position).toEqual({ x: 400, y: 20 });
    graph.nodes[1]!.position = { x: 512.4, y: 80 };
    const saved = graphToDocument(graph);
    expect(saved.layout.nodes.generator).toEqual({ x: 512, y: 80 });
    expect(saved.document).toEqual(qa);
  });

  it('keeps the order of inputs and outputs the document gave', () => {
    const graph = documentToGraph(multi);
    graph.nodes.reverse();
    const { document } = graphToDocument(graph);
    expect(document.program.inputs).toEqual(['question', 'draft']);
    expect(document.program.outputs).toEqual(['reporter', 'reviser']);
    expect(document.program.modules.map((m) => m.name)).toEqual([
      'question',
      'reporter',
      'draft',
      'reviser',
    ]);
  });

  it('writes the default instructions the engine would', () => {
    const schemaOf = (doc: ProgramDocument, i: number) =>
      (doc.program.modules[i]!.module.config as unknown as GeneratorConfig).data_model.schema;
    expect(defaultInstructions('Generator', schemaOf(multi, 1))).toBe(
      multi.variables['reporter/state']!.instructions,
    );
    expect(defaultInstructions('ChainOfThought', schemaOf(qa, 1))).toBe(
      'Your task is to answer with a JSON containing the following keys: ["thinking", "answer"].',
    );
  });

  it('refuses what is not a program document', () => {
    expect(() => documentToGraph({ kind: 'optimizer_core.variables', format_version: 1 })).toThrow(
      "expected a 'optimizer_core.program' document",
    );
    expect(() => documentToGraph({ ...qa, format_version: 2 })).toThrow(DocumentError);
    const unknown = structuredClone(qa);
    unknown.program.modules[1]!.module.class_name = 'Retriever';
    expect(() => documentToGraph(unknown)).toThrow("module 'generator' is a Retriever");
  });

  it('carries keys it does not know', () => {
    const extended = { ...structuredClone(qa), created_by: 'notebook' };
    expect(graphToDocument(documentToGraph(extended)).document).toEqual(extended);
  });
});
