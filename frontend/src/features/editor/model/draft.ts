/**
 * A local draft of the canvas: what was on it when the tab closed without a save, kept in
 * the browser under the program's id and the version it was based on. No React, no storage:
 * see ../store/drafts.ts for where drafts are kept.
 */
import { isJsonObject } from '@/lib/json';
import { MODULE_KINDS } from './document';
import { moduleName, type EditorGraph, type ProgramNode } from './graph';

export type Draft = {
  /** The saved program the draft belongs to; null for a program never saved. */
  programId: number | null;
  /** The version the edits started from; null for a program never saved. */
  baseVersion: number | null;
  /** When the draft was written (ms since the epoch). */
  savedAt: number;
  /** The canvas: nodes (without selection or sizes), edges and the program's other fields. */
  graph: EditorGraph;
};

export const DRAFT_PREFIX = 'studio.editor.draft';

/** Where every draft of a program lives (`studio.editor.draft.7.`, or `.new.` when unsaved). */
export function draftPrefix(programId: number | null): string {
  return `${DRAFT_PREFIX}.${programId ?? 'new'}.`;
}

/** The storage key of a draft: the program id and the version it was based on. */
export function draftKey(programId: number | null, baseVersion: number | null): string {
  return `${draftPrefix(programId)}v${baseVersion ?? 0}`;
}

/**
 * The canvas as a string that ignores what React Flow and the page add (selection,
 * measured sizes) and node ids, which are new on every load: equal strings mean equal programs.
 */
export function canonicalGraph(graph: EditorGraph): string {
  const names = new Map(graph.nodes.map((n) => [n.id, moduleName(n)]));
  const nodes = graph.nodes
    .map((n) => ({ name: moduleName(n), type: n.type, position: n.position, data: n.data }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const edges = graph.edges
    .map((e) => `${names.get(e.source) ?? e.source}->${names.get(e.target) ?? e.target}`)
    .sort();
  return JSON.stringify({ nodes, edges, meta: graph.meta });
}

function isNode(value: unknown): value is ProgramNode {
  if (!isJsonObject(value) || typeof value.id !== 'string') return false;
  const { type, position, data } = value as Record<string, unknown>;
  return (
    MODULE_KINDS.includes(type as ProgramNode['type']) &&
    isJsonObject(position) &&
    typeof position.x === 'number' &&
    typeof position.y === 'number' &&
    isJsonObject(data) &&
    data.kind === type &&
    isJsonObject(data.config) &&
    typeof data.config.name === 'string'
  );
}

/** Read a stored draft back; anything this editor did not write gives null. */
export function parseDraft(text: string | null): Draft | null {
  if (!text) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isJsonObject(value) || !isJsonObject(value.graph)) return null;
  const { programId, baseVersion, savedAt } = value;
  const { nodes, edges, meta } = value.graph;
  const idOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isInteger(v));
  if (!idOrNull(programId) || !idOrNull(baseVersion) || typeof savedAt !== 'number') return null;
  if (!Array.isArray(nodes) || !nodes.every(isNode)) return null;
  const ids = new Set((nodes as unknown as ProgramNode[]).map((n) => n.id));
  const edgeOk = (e: unknown) =>
    isJsonObject(e) &&
    typeof e.id === 'string' &&
    ids.has(e.source as string) &&
    ids.has(e.target as string);
  if (!Array.isArray(edges) || !edges.every(edgeOk)) return null;
  if (!isJsonObject(meta) || typeof meta.name !== 'string') return null;
  return value as unknown as Draft;
}

/**
 * The draft to offer when a program opens: one written after the version on the canvas
 * was saved (a draft older than it was overtaken by a save). A program never saved has
 * no version: any draft of it is offered.
 *
 * @param openedAt when the opened version was saved (ms), null for a program never saved.
 */
export function draftToOffer(draft: Draft | null, openedAt: number | null): Draft | null {
  if (!draft) return null;
  if (openedAt === null) return draft;
  return draft.savedAt > openedAt ? draft : null;
}
