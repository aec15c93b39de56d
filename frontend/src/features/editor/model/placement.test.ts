import { describe, expect, it } from 'vitest';
import { freePosition, GAP, NODE_SIZE, nodeRect, type Rect } from './placement';

const rect = (x: number, y: number, width = 240, height = 160): Rect => ({ x, y, width, height });

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('freePosition', () => {
  it('starts at the origin on an empty canvas', () => {
    expect(freePosition([], null)).toEqual({ x: 0, y: 0 });
    expect(freePosition([], null, NODE_SIZE, { x: 50, y: 70 })).toEqual({ x: 50, y: 70 });
  });

  it('puts the new module to the right of the last one, level with it', () => {
    const last = rect(100, 40, 260, 180);
    expect(freePosition([last], last)).toEqual({ x: 100 + 260 + GAP.x, y: 40 });
  });

  it('goes down the column, just below what is in the way', () => {
    const last = rect(0, 0);
    const blocker = rect(320, 20, 240, 200);
    const below = rect(320, 260, 240, 100);
    const spot = freePosition([last, blocker, below], last);
    expect(spot).toEqual({ x: 320, y: 260 + 100 + GAP.y });
  });

  it('never lands on a module, however many are added one after another', () => {
    const occupied: Rect[] = [];
    let last: Rect | null = null;
    for (let i = 0; i < 12; i += 1) {
      const spot = freePosition(occupied, last);
      const placed = { ...spot, ...NODE_SIZE };
      for (const other of occupied) expect(overlaps(placed, other)).toBe(false);
      occupied.push(placed);
      // Every third module is added "after" the first one: they stack in its next column.
      last = i % 3 === 2 ? (occupied[0] ?? null) : placed;
    }
  });

  it('measures nodes when React Flow has, and estimates them before', () => {
    expect(nodeRect({ position: { x: 1, y: 2 } })).toEqual({ x: 1, y: 2, ...NODE_SIZE });
    expect(nodeRect({ position: { x: 1, y: 2 }, measured: { width: 300, height: 90 } })).toEqual(
      rect(1, 2, 300, 90),
    );
  });
});
