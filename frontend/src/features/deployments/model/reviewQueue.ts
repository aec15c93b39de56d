/**
 * The review queue: the unreviewed predictions of the list, one at a time, by keyboard.
 *
 * The queue is fixed when it starts (the rows shown without a verdict, in list order),
 * so a row that gets its verdict stays where it is and `k` can go back to it. A verdict
 * moves to the next row not yet judged in this queue; past the last one the queue is
 * finished. Pure: the tab keeps the state and sends the PATCH a `mark` stands for.
 */

export type Verdict = 'right' | 'wrong';

export type QueueState = {
  /** The rows of the queue, in list order. */
  ids: number[];
  /** The index of the row shown (`ids.length`: finished). */
  position: number;
  /** The verdict each row got in this queue. */
  judged: Record<number, Verdict>;
};

export type QueueKeyAction = 'next' | 'previous' | 'right' | 'wrong' | 'correct' | 'leave';

/** A queue over the rows without a verdict. */
export function startQueue(rows: { id: number; verdict: string | null }[]): QueueState {
  return { ids: rows.filter((r) => !r.verdict).map((r) => r.id), position: 0, judged: {} };
}

/** The row shown, or null once the queue is finished (or empty). */
export function currentId(state: QueueState): number | null {
  return state.ids[state.position] ?? null;
}

export function isFinished(state: QueueState): boolean {
  return state.position >= state.ids.length;
}

export function next(state: QueueState): QueueState {
  return { ...state, position: Math.min(state.position + 1, state.ids.length) };
}

export function previous(state: QueueState): QueueState {
  return { ...state, position: Math.max(state.position - 1, 0) };
}

/** The row shown gets `verdict`; the queue moves to the next row not yet judged. */
export function mark(state: QueueState, verdict: Verdict): QueueState {
  const id = currentId(state);
  if (id === null) return state;
  const judged = { ...state.judged, [id]: verdict };
  let position = state.position + 1;
  while (position < state.ids.length && judged[state.ids[position]!] !== undefined) position += 1;
  return { ...state, judged, position };
}

/** How many rows of the queue have their verdict. */
export function judgedCount(state: QueueState): number {
  return Object.keys(state.judged).length;
}

const KEYS: Record<string, QueueKeyAction> = {
  j: 'next',
  ArrowDown: 'next',
  k: 'previous',
  ArrowUp: 'previous',
  r: 'right',
  w: 'wrong',
  c: 'correct',
  Escape: 'leave',
};

/** What a key does in the queue (null: nothing); in a field only Escape acts (it leaves the field). */
export function keyAction(key: string, inField: boolean): QueueKeyAction | null {
  if (inField) return key === 'Escape' ? 'leave' : null;
  return KEYS[key] ?? null;
}
