import { useMemo } from 'react';
import { programProblems, type Problem } from '../model/rules';
import { useEditorStore } from '../store/editorStore';

/** The program's problems, recomputed only when the graph changes. */
export function useProgramProblems(): Problem[] {
  const nodes = useEditorStore((s) => s.nodes);
  const edges = useEditorStore((s) => s.edges);
  const meta = useEditorStore((s) => s.meta);
  return useMemo(() => programProblems({ nodes, edges, meta }), [nodes, edges, meta]);
}
