import { describe, expect, it } from 'vitest';
import {
  currentId,
  isFinished,
  judgedCount,
  keyAction,
  mark,
  next,
  previous,
  startQueue,
} from './reviewQueue';

const rows = [
  { id: 9, verdict: null },
  { id: 8, verdict: 'right' },
  { id: 7, verdict: null },
  { id: 6, verdict: null },
];

describe('review queue', () => {
  it('goes through the unreviewed rows only, in list order', () => {
    const queue = startQueue(rows);
    expect(queue.ids).toEqual([9, 7, 6]);
    expect(currentId(queue)).toBe(9);
    expect(currentId(next(queue))).toBe(7);
    expect(currentId(previous(queue))).toBe(9);
    expect(isFinished(next(next(next(queue))))).toBe(true);
    expect(isFinished(next(next(next(next(queue)))))).toBe(true);
    expect(currentId(previous(next(next(next(queue)))))).toBe(6);
  });

  it('a verdict moves on to the next row not yet judged, then finishes', () => {
    let queue = mark(startQueue(rows), 'right');
    expect(currentId(queue)).toBe(7);
    queue = previous(queue);
    expect(currentId(queue)).toBe(9); // going back to a judged row is allowed
    queue = mark(queue, 'wrong'); // judged again; 7 is next, not judged yet
    expect(currentId(queue)).toBe(7);
    queue = mark(next(queue), 'wrong'); // 6 judged first
    expect(isFinished(queue)).toBe(true);
    queue = mark(previous(previous(queue)), 'right'); // back on 7, judged: skips judged 6
    expect(isFinished(queue)).toBe(true);
    expect(queue.judged).toEqual({ 9: 'wrong', 7: 'right', 6: 'wrong' });
    expect(judgedCount(queue)).toBe(3);
  });

  it('an empty queue is finished at once and ignores verdicts', () => {
    const queue = startQueue([{ id: 1, verdict: 'wrong' }]);
    expect(isFinished(queue)).toBe(true);
    expect(currentId(queue)).toBeNull();
    expect(mark(queue, 'right')).toBe(queue);
  });

  it('maps the keys, and leaves typing in a field alone except Escape', () => {
    expect(
      ['j', 'ArrowDown', 'k', 'r', 'w', 'c', 'Escape'].map((k) => keyAction(k, false)),
    ).toEqual(['next', 'next', 'previous', 'right', 'wrong', 'correct', 'leave']);
    expect(keyAction('x', false)).toBeNull();
    expect(keyAction('r', true)).toBeNull();
    expect(keyAction('Escape', true)).toBe('leave');
  });
});
