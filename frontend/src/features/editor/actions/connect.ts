import { makeEdge, OUTPUT_HANDLE } from '../model/graph';
import { checkConnection } from '../model/rules';
import { change, defineAction, refuse } from './types';

export type ConnectArgs = {
  source: string | null;
  target: string | null;
  /** The source's output handle: a Branch's label slot (`out:k`); its one output otherwise. */
  sourceHandle?: string | null;
};

/** Wire one module's output into another's input, unless optimizer_core would refuse it. */
export const connect = defineAction<ConnectArgs>({
  name: 'connect',
  label: 'Connect',
  perform: (state, { source, target, sourceHandle }) => {
    const check = checkConnection(state, source, target, sourceHandle);
    if (!check.ok) return refuse(check.reason);
    const handle = sourceHandle ?? OUTPUT_HANDLE;
    return change({
      edges: [...state.edges, makeEdge(source as string, target as string, handle)],
    });
  },
});
