import { makeEdge } from '../model/graph';
import { checkConnection } from '../model/rules';
import { change, defineAction, refuse } from './types';

export type ConnectArgs = { source: string | null; target: string | null };

/** Wire one module's output into another's input, unless optimizer_core would refuse it. */
export const connect = defineAction<ConnectArgs>({
  name: 'connect',
  label: 'Connect',
  perform: (state, { source, target }) => {
    const check = checkConnection(state, source, target);
    if (!check.ok) return refuse(check.reason);
    return change({ edges: [...state.edges, makeEdge(source as string, target as string)] });
  },
});
