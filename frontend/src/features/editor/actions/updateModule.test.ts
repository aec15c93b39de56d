import { describe, expect, it } from 'vitest';
import { STARTER_MODELS } from '../model/defaults';
import route from '../__fixtures__/template_route_then_answer.json';
import {
  documentToGraph,
  graphToDocument,
  moduleName,
  type GeneratorNodeData,
} from '../model/graph';
import { addNode } from './addNode';
import { setQuestion } from './editLabels';
import { apply, makeState, reason } from './testing';
import { setDataModel, setProgramOutput, updateModule, updateProgram } from './updateModule';

const generatorData = (state: ReturnType<typeof makeState>, i: number) =>
  state.nodes[i]!.data as GeneratorNodeData;

describe('updateModule', () => {
  it('renames a module, its variable and its place among the outputs', () => {
    const state = makeState('qa');
    const cot = state.nodes[2]!.id;
    const next = apply(state, updateModule, { nodeId: cot, config: { name: 'final' } });
    const { document } = graphToDocument(next);
    expect(document.program.outputs).toEqual(['final']);
    expect(Object.keys(document.variables)).toEqual(['generator/state', 'final/state']);
  });

  it('refuses a name another module has, or one with a slash', () => {
    const state = makeState('qa');
    const cot = state.nodes[2]!.id;
    expect(reason(state, updateModule, { nodeId: cot, config: { name: 'generator' } })).toBe(
      "Another module is already named 'generator'.",
    );
    expect(reason(state, updateModule, { nodeId: cot, config: { name: 'a/b' } })).toMatch(
      /cannot contain "\/"/,
    );
    expect(reason(state, updateModule, { nodeId: cot, config: { temperature: -1 } })).toMatch(
      />= 0/,
    );
    expect(
      reason(state, updateModule, { nodeId: state.nodes[0]!.id, config: { temperature: 1 } }),
    ).toBe('An Input has no temperature setting.');
  });

  it('sets and clears the sampling settings, and refuses one out of range', () => {
    const state = makeState('qa');
    const cot = state.nodes[2]!.id;
    const settings = { max_tokens: 512, top_p: 0.9, top_k: 40, reasoning_effort: 'low' } as const;
    const next = apply(state, updateModule, { nodeId: cot, config: settings });
    expect(graphToDocument(next).document.program.modules[2]!.module.config).toMatchObject(
      settings,
    );
    const cleared = apply(next, updateModule, { nodeId: cot, config: { top_k: null } });
    expect(generatorData(cleared, 2).config).toMatchObject({ top_k: null, top_p: 0.9 });
    expect(reason(next, updateModule, { nodeId: cot, config: { top_p: 1.5 } })).toBe(
      "Top p must be a number above 0 and at most 1 (empty: the provider's default).",
    );
    expect(reason(next, updateModule, { nodeId: cot, config: { max_tokens: 0.5 } })).toMatch(
      /^Max tokens must be a whole number >= 1/,
    );
    // A refused edit changes nothing.
    expect(generatorData(next, 2).config.top_p).toBe(0.9);
    expect(reason(state, updateModule, { nodeId: state.nodes[0]!.id, config: { top_k: 3 } })).toBe(
      'An Input has no top_k setting.',
    );
  });

  it('edits settings and the trainable variable', () => {
    const state = makeState('qa');
    const gen = state.nodes[1]!.id;
    const next = apply(state, updateModule, {
      nodeId: gen,
      config: { temperature: 0.7, use_outputs_schema: true, instructions: 'Be terse.' },
      variable: { examples: [{ inputs: { query: 'q' }, outputs: { answer: 'a' } }] },
    });
    const data = generatorData(next, 1);
    expect(data.config).toMatchObject({
      temperature: 0.7,
      use_outputs_schema: true,
      instructions: 'Be terse.',
    });
    expect(data.variable.instructions).toBe('Be terse.');
    expect(data.variable.examples).toHaveLength(1);
    // The original state is untouched (undo depends on it).
    expect(generatorData(state, 1).config.temperature).toBeNull();
  });
});

describe('setDataModel', () => {
  it('switches the model and keeps default instructions in step with its keys', () => {
    const state = makeState('qa');
    const query = STARTER_MODELS[0]!;
    const next = apply(state, setDataModel, { nodeId: state.nodes[1]!.id, dataModel: query });
    expect(generatorData(next, 1).config.data_model.name).toBe('Query');
    expect(generatorData(next, 1).variable.instructions).toBe(
      'Your task is to answer with a JSON containing the following keys: ["query"].',
    );
    // Instructions someone wrote stay as they are.
    const cot = apply(state, setDataModel, { nodeId: state.nodes[2]!.id, dataModel: query });
    expect(generatorData(cot, 2).variable.instructions).toBe('Think first.');
  });
});

describe('updateProgram', () => {
  it('renames the program but not to nothing', () => {
    const next = apply(makeState('qa'), updateProgram, { name: 'qa2', description: null });
    expect(next.meta.name).toBe('qa2');
    expect(reason(next, updateProgram, { name: '  ' })).toBe('The program needs a name.');
    expect(next.nodes.map(moduleName)).toHaveLength(3);
  });
});

describe('setProgramOutput', () => {
  it('makes a module that feeds another an output as well, and back', () => {
    const state = makeState('qa');
    const gen = state.nodes[1]!.id;
    const next = apply(state, setProgramOutput, { nodeId: gen, output: true });
    const { document } = graphToDocument(next);
    expect(document.program.outputs).toEqual(['chain_of_thought', 'generator']);
    expect(document.program.single_output).toBe(false);
    const back = apply(next, setProgramOutput, { nodeId: gen, output: false });
    expect(graphToDocument(back).document.program.outputs).toEqual(['chain_of_thought']);
    expect(reason(state, setProgramOutput, { nodeId: state.nodes[2]!.id, output: false })).toBe(
      "'chain_of_thought' feeds no other module, so it is always an output.",
    );
  });
});

describe('renaming a module that names its Generators', () => {
  it("renames a Branch's decision variable with it, and keeps its branches'", () => {
    const state = { ...documentToGraph(route), dataModels: structuredClone(STARTER_MODELS) };
    const next = apply(state, updateModule, {
      nodeId: state.nodes[1]!.id,
      config: { name: 'triage' },
    });
    const { document } = graphToDocument(next);
    expect(Object.keys(document.variables)).toEqual([
      'triage_decision/state',
      'account_topic/state',
      'order_topic/state',
    ]);
    expect(document.program.modules[2]!.inbound).toEqual([
      { module: 'triage', output: 0 },
      { module: 'triage', output: 1 },
    ]);
  });
  it("edits a Decision's question, sampling and instructions; empty instructions are the labels' default", () => {
    let state = apply(makeState(), addNode, { kind: 'Decision' });
    const nodeId = state.nodes[0]!.id;
    state = apply(state, setQuestion, { nodeId, question: 'Is it urgent?' });
    state = apply(state, updateModule, {
      nodeId,
      config: { temperature: 0, instructions: 'Choose yes when it is urgent.' },
      variable: { instructions: 'Choose yes when it is urgent.' },
    });
    const { document } = graphToDocument(state);
    const config = document.program.modules[0]!.module.config;
    expect(config).toMatchObject({
      question: 'Is it urgent?',
      temperature: 0,
      instructions: 'Choose yes when it is urgent.',
    });
    expect(document.variables['decision/state']!.instructions).toBe(
      'Choose yes when it is urgent.',
    );
    const reset = apply(state, updateModule, { nodeId, config: { instructions: null } });
    const data = reset.nodes[0]!.data;
    expect(data.kind === 'Decision' && data.variable.instructions).toContain('["yes", "no"]');
    expect(reason(state, updateModule, { nodeId, config: { top_k: 0 } })).toMatch(/^Top k must be/);
  });
});
