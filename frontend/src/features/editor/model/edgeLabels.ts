/**
 * What a screen reader hears for a connection. React Flow's default names the nodes by their
 * internal ids ("Edge from input-mx3m... to ..."); a connection is named by its modules instead.
 */
import { moduleName, type ProgramEdge, type ProgramNode } from './graph';

/** "Connection from input_layer to generator", by module names (ids only for a missing node). */
export function edgeAriaLabel(
  edge: Pick<ProgramEdge, 'source' | 'target'>,
  names: Map<string, string>,
) {
  return `Connection from ${names.get(edge.source) ?? edge.source} to ${names.get(edge.target) ?? edge.target}`;
}

/** Module names by node id. */
export function namesById(nodes: ProgramNode[]): Map<string, string> {
  return new Map(nodes.map((node) => [node.id, moduleName(node)]));
}

/**
 * The edges with their `ariaLabel`; an edge whose label is already right is kept as it is,
 * so React Flow does not re-render connections for nothing.
 */
export function labelEdges(edges: ProgramEdge[], names: Map<string, string>): ProgramEdge[] {
  return edges.map((edge) => {
    const ariaLabel = edgeAriaLabel(edge, names);
    return edge.ariaLabel === ariaLabel ? edge : { ...edge, ariaLabel };
  });
}
