/**
 * Where a new module goes on the canvas: beside the last one, clear of every other,
 * so no module hides another's handles.
 */
import type { XYPosition } from '@xyflow/react';
import type { ProgramNode } from './graph';

export type Rect = { x: number; y: number; width: number; height: number };
export type Size = { width: number; height: number };

/** A module's size before React Flow has measured it (the node CSS is 240px wide). */
export const NODE_SIZE: Size = { width: 240, height: 160 };
/** Room between modules: enough for a wire and its handles to show. */
export const GAP = { x: 80, y: 40 };

/** The rectangle a node covers, measured when React Flow has done so, estimated before. */
export function nodeRect(node: Pick<ProgramNode, 'position' | 'measured'>): Rect {
  return {
    x: node.position.x,
    y: node.position.y,
    width: node.measured?.width ?? NODE_SIZE.width,
    height: node.measured?.height ?? NODE_SIZE.height,
  };
}

/** Whether two rectangles come closer than `gap` to each other. */
function crowds(a: Rect, b: Rect, gap: { x: number; y: number }): boolean {
  return (
    a.x < b.x + b.width + gap.x &&
    b.x < a.x + a.width + gap.x &&
    a.y < b.y + b.height + gap.y &&
    b.y < a.y + a.height + gap.y
  );
}

/**
 * A free position for a module of `size`: to the right of `anchor` (the module added last,
 * or the one the new module reads from), level with it, else lower down the same column,
 * just below whatever is in the way. Without an anchor, the column starts at `origin`.
 */
export function freePosition(
  occupied: Rect[],
  anchor: Rect | null,
  size: Size = NODE_SIZE,
  origin: XYPosition = { x: 0, y: 0 },
): XYPosition {
  const x = anchor ? anchor.x + anchor.width + GAP.x : origin.x;
  let y = anchor ? anchor.y : origin.y;
  // Each step moves below at least one rectangle, so this ends after occupied.length steps.
  for (let step = 0; step <= occupied.length; step += 1) {
    const candidate = { x, y, ...size };
    const blockers = occupied.filter((rect) => crowds(candidate, rect, GAP));
    if (blockers.length === 0) return { x, y };
    y = Math.max(...blockers.map((rect) => rect.y + rect.height + GAP.y));
  }
  return { x, y };
}
