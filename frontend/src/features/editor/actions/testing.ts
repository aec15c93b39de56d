import qa from '../__fixtures__/program_qa.json';
import { STARTER_MODELS } from '../model/defaults';
import { documentToGraph, emptyGraph } from '../model/graph';
import type { Action, EditorDocumentState } from './types';

/** A state for action tests: empty, or the Input -> Generator -> ChainOfThought fixture. */
export function makeState(which: 'empty' | 'qa' = 'empty'): EditorDocumentState {
  const graph = which === 'qa' ? documentToGraph(qa) : emptyGraph();
  return { ...graph, dataModels: structuredClone(STARTER_MODELS) };
}

/** Apply an action and return the next state, failing the test on a refusal. */
export function apply<Args>(
  state: EditorDocumentState,
  action: Action<Args>,
  args: Args,
): EditorDocumentState {
  const result = action.perform(state, args);
  if (!result.ok) throw new Error(`${action.name} refused: ${result.reason}`);
  return { ...state, ...result.state };
}

export function reason<Args>(state: EditorDocumentState, action: Action<Args>, args: Args): string {
  const result = action.perform(state, args);
  if (result.ok) throw new Error(`${action.name} was expected to refuse`);
  return result.reason;
}
