import { describe, expect, it } from 'vitest';
import bothJson from '../__fixtures__/program_both_outputs.json';
import multiJson from '../__fixtures__/program_multi.json';
import qaJson from '../__fixtures__/program_qa.json';
// The "new program" templates, as studio/programs/templates.py builds them (`npm run fixtures`).
import critiqueJson from '../__fixtures__/template_answer_then_critique.json';
import draftJson from '../__fixtures__/template_draft_then_answer.json';
import routeJson from '../__fixtures__/template_route_then_answer.json';
import singleJson from '../__fixtures__/template_single_generator.json';
import {
  critiqueInstructions,
  decisionInstructions,
  defaultInstructions,
  revisionInstructions,
  DocumentError,
  type GeneratorConfig,
  type ProgramDocument,
} from './document';
import { documentToGraph, graphToDocument, moduleName, slotHandle } from './graph';
import { OutputModels, modelKeys } from './schemas';
import { programProblems } from './rules';

const qa = qaJson as unknown as ProgramDocument;
const multi = multiJson as unknown as ProgramDocument;
const both = bothJson as unknown as ProgramDocument;
const route = routeJson as unknown as ProgramDocument;
const critique = critiqueJson as unknown as ProgramDocument;
const draft = draftJson as unknown as ProgramDocument;
const single = singleJson as unknown as ProgramDocument;

describe('document <-> graph', () => {
  it.each([
    ['program_qa.json', qa],
    ['program_multi.json', multi],
    ['program_both_outputs.json', both],
    ['template_single_generator.json', single],
    ['template_draft_then_answer.json', draft],
    ['template_route_then_answer.json', route],
    ['template_answer_then_critique.json', critique],
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

  it('draws a Branch with one output per label, each slot wired on its own', () => {
    const graph = documentToGraph(route);
    expect(graph.nodes.map((n) => [n.type, moduleName(n)])).toEqual([
      ['Input', 'message'],
      ['Branch', 'router'],
      ['Or', 'topic'],
    ]);
    const [message, router, topic] = graph.nodes.map((n) => n.id);
    expect(graph.edges.map((e) => [e.source, e.sourceHandle, e.target])).toEqual([
      [message, 'out', router],
      [router, slotHandle(0), topic],
      [router, slotHandle(1), topic],
    ]);
    // The Branch keeps its decision's and its branches' variables.
    const branch = graph.nodes[1]!;
    expect(branch.data.kind === 'Branch' && Object.keys(branch.data.variables)).toEqual([
      'router_decision/state',
      'account_topic/state',
      'order_topic/state',
    ]);
    // Label 'order' read from slot 1: the Or after it gets the branches' topic.
    const models = new OutputModels(graph);
    expect(models.outputs(router!).map(modelKeys)).toEqual([['topic'], ['topic']]);
    expect(modelKeys(models.outputs(topic!)[0])).toEqual(['topic']);
  });

  it('draws a module with two inputs as two edges into it, in the order it reads them', () => {
    for (const fixture of [draft, critique]) {
      const graph = documentToGraph(fixture);
      const last = graph.nodes.at(-1)!;
      const names = new Map(graph.nodes.map((n) => [n.id, moduleName(n)]));
      expect(
        graph.edges.filter((e) => e.target === last.id).map((e) => names.get(e.source)),
      ).toEqual(fixture.program.modules.at(-1)!.inbound);
    }
    const graph = documentToGraph(critique);
    const critic = graph.nodes.at(-1)!;
    expect(critic.type).toBe('SelfCritique');
    // Revising, it writes the last input's fields again, with the critique.
    expect(modelKeys(new OutputModels(graph).outputs(critic.id)[0])).toEqual([
      'answer',
      'critique',
      'reward',
    ]);
  });

  it('writes inbound wires in the order the edges give, slot by slot', () => {
    const graph = documentToGraph(route);
    graph.edges.reverse();
    const { document } = graphToDocument(graph);
    expect(document.program.modules.at(-1)!.inbound).toEqual([
      { module: 'router', output: 1 },
      { module: 'router', output: 0 },
    ]);
  });

  it('reads and writes each output of an Identity given several inputs as its own wire', () => {
    const doc = structuredClone(critique);
    const modules = doc.program.modules;
    // question, answerer -> Identity "both" -> critic reads both of its outputs.
    modules.splice(2, 0, {
      name: 'both',
      module: {
        module: 'optimizer_core.modules.identity',
        class_name: 'Identity',
        registered_name: 'optimizer_core.modules.identity.Identity',
        config: { name: 'both', description: null, trainable: true },
      },
      inbound: ['question', 'answerer'],
    });
    modules[3]!.inbound = [
      { module: 'both', output: 0 },
      { module: 'both', output: 1 },
    ];
    const graph = documentToGraph(doc);
    expect(
      graph.edges.filter((e) => e.source === graph.nodes[2]!.id).map((e) => e.sourceHandle),
    ).toEqual([slotHandle(0), slotHandle(1)]);
    expect(graphToDocument(graph).document).toEqual(doc);
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

  it('writes the default instructions of decisions, critics and revisers as the engine does', () => {
    expect(decisionInstructions('Decision', ['account', 'order'])).toBe(
      route.variables['router_decision/state']!.instructions,
    );
    expect(critiqueInstructions(true)).toBe(
      critique.variables['critic_critic/state']!.instructions,
    );
    expect(revisionInstructions(['answer'])).toBe(
      critique.variables['critic_reviser/state']!.instructions,
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
