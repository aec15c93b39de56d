import { describe, expect, it } from 'vitest';
import {
  addRow,
  draftSize,
  editRow,
  emptyDraft,
  parseObject,
  toggleRemove,
  toRequest,
  undoEdit,
} from './versionDraft';

describe('version drafts', () => {
  it('collects additions, removals and edits into the request for the next version', () => {
    let draft = addRow(emptyDraft, { input: { q: 'new' }, output: { a: 1 }, split: 'test' });
    draft = toggleRemove(draft, 9);
    draft = toggleRemove(draft, 2);
    draft = editRow(draft, 4, { output: { a: 2 } });
    draft = editRow(draft, 4, { input: { q: 'x' } });
    expect(draftSize(draft)).toBe(4);
    expect(toRequest(draft, 3, 'fix row 4')).toEqual({
      parent: 3,
      message: 'fix row 4',
      add: [{ input: { q: 'new' }, output: { a: 1 }, split: 'test' }],
      remove: [2, 9],
      edit: [{ row_id: 4, input: { q: 'x' }, output: { a: 2 } }],
    });
  });

  it('makes removing and editing the same row exclusive, and undoable', () => {
    let draft = editRow(emptyDraft, 4, { output: { a: 2 } });
    draft = toggleRemove(draft, 4);
    expect(draft.edit).toEqual({});
    expect(draft.remove).toEqual([4]);
    draft = editRow(draft, 4, { output: { a: 3 } });
    expect(draft.remove).toEqual([]);
    expect(undoEdit(draft, 4)).toEqual(emptyDraft);
    expect(toggleRemove(toggleRemove(emptyDraft, 1), 1)).toEqual(emptyDraft);
  });

  it('reads a JSON object from a text box, or says why not', () => {
    expect(parseObject('{"q": 1}')).toEqual({ value: { q: 1 } });
    expect(parseObject('[1]')).toEqual({ error: 'must be a JSON object, {"field": value}' });
    expect('error' in parseObject('{q')).toBe(true);
  });
});
