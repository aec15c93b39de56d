/**
 * A candidate's trainable value against its parent's: text fields diffed word by word,
 * `examples` as the examples added and removed, anything else as before / after JSON.
 */

export type Segment = { kind: 'same' | 'added' | 'removed'; text: string };

export type FieldDiff =
  | { field: string; kind: 'text'; changed: boolean; segments: Segment[] }
  | {
      field: string;
      kind: 'examples';
      changed: boolean;
      added: unknown[];
      removed: unknown[];
      kept: number;
    }
  | { field: string; kind: 'json'; changed: boolean; before: unknown; after: unknown };

/** Above this many word pairs, a text diff is one removal and one addition (no LCS table). */
const MAX_CELLS = 4_000_000;

/** Words and the whitespace between them: joining the tokens gives the text back. */
function tokens(text: string): string[] {
  return text.split(/(\s+)/).filter((t) => t !== '');
}

function merge(segments: Segment[]): Segment[] {
  const merged: Segment[] = [];
  for (const s of segments) {
    const last = merged[merged.length - 1];
    if (last && last.kind === s.kind) last.text += s.text;
    else merged.push({ ...s });
  }
  return merged;
}

/**
 * One removal then one addition per run of changes: two different sentences share little but
 * the spaces between their words, and word-by-word alternation would be unreadable.
 */
function groupChanges(segments: Segment[]): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  while (i < segments.length) {
    if (segments[i]!.kind === 'same') {
      out.push(segments[i++]!);
      continue;
    }
    let removed = '';
    let added = '';
    for (; i < segments.length; i++) {
      const s = segments[i]!;
      const next = segments[i + 1];
      if (s.kind === 'removed') removed += s.text;
      else if (s.kind === 'added') added += s.text;
      else if (/^\s+$/.test(s.text) && next && next.kind !== 'same') {
        removed += s.text;
        added += s.text;
      } else break;
    }
    if (removed.trim()) out.push({ kind: 'removed', text: removed });
    if (added.trim()) out.push({ kind: 'added', text: added });
  }
  return merge(out);
}

/** The words of `after` against `before`: kept, added and removed runs, in reading order. */
export function diffText(before: string, after: string): Segment[] {
  if (before === after) return before ? [{ kind: 'same', text: before }] : [];
  const a = tokens(before);
  const b = tokens(after);
  if (a.length * b.length > MAX_CELLS)
    return merge([
      { kind: 'removed', text: before },
      { kind: 'added', text: after },
    ]).filter((s) => s.text);
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: Segment[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      out.push({ kind: 'removed', text: a[i++]! });
    } else {
      out.push({ kind: 'added', text: b[j++]! });
    }
  }
  while (i < a.length) out.push({ kind: 'removed', text: a[i++]! });
  while (j < b.length) out.push({ kind: 'added', text: b[j++]! });
  return groupChanges(merge(out));
}

/** An example's identity: its inputs and outputs (its recorded reward aside). */
function exampleKey(example: unknown): string {
  if (example && typeof example === 'object' && !Array.isArray(example)) {
    const { inputs, outputs } = example as Record<string, unknown>;
    if (inputs !== undefined || outputs !== undefined) return JSON.stringify([inputs, outputs]);
  }
  return JSON.stringify(example);
}

/** Examples in `after` and not in `before` (added), the reverse (removed), and those kept. */
export function diffExamples(
  before: unknown[],
  after: unknown[],
): { added: unknown[]; removed: unknown[]; kept: number } {
  const count = (list: unknown[]) => {
    const counts = new Map<string, number>();
    for (const e of list) counts.set(exampleKey(e), (counts.get(exampleKey(e)) ?? 0) + 1);
    return counts;
  };
  const left = count(before);
  const right = count(after);
  const take = (list: unknown[], other: Map<string, number>) => {
    const budget = new Map(other);
    return list.filter((e) => {
      const key = exampleKey(e);
      const n = budget.get(key) ?? 0;
      if (n > 0) {
        budget.set(key, n - 1);
        return false;
      }
      return true;
    });
  };
  const added = take(after, left);
  return { added, removed: take(before, right), kept: after.length - added.length };
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * Each field of a candidate's value against its parent's, in the value's own order (fields
 * only the parent had come last). No parent value: every field as added.
 */
export function diffValue(
  parent: Record<string, unknown> | null | undefined,
  value: Record<string, unknown> | null | undefined,
): FieldDiff[] {
  const before = parent ?? {};
  const after = value ?? {};
  const fields = [...Object.keys(after), ...Object.keys(before).filter((k) => !(k in after))];
  return fields.map((field): FieldDiff => {
    const old = before[field];
    const now = after[field];
    if (field === 'examples' && (Array.isArray(old) || Array.isArray(now))) {
      const { added, removed, kept } = diffExamples(asList(old), asList(now));
      return {
        field,
        kind: 'examples',
        changed: added.length > 0 || removed.length > 0,
        added,
        removed,
        kept,
      };
    }
    if ((typeof old === 'string' || old === undefined) && typeof now === 'string') {
      const segments = diffText(old ?? '', now);
      return { field, kind: 'text', changed: old !== now, segments };
    }
    return {
      field,
      kind: 'json',
      changed: JSON.stringify(old) !== JSON.stringify(now),
      before: old,
      after: now,
    };
  });
}
