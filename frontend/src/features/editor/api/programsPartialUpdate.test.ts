import { describe, expect, it } from 'vitest';
import { descriptionPatch } from './programsPartialUpdate';

describe('descriptionPatch', () => {
  it('asks for a change only when the editor and the Program row disagree', () => {
    expect(descriptionPatch('Answer questions', '')).toEqual({ description: 'Answer questions' });
    expect(descriptionPatch(null, 'old')).toEqual({ description: '' });
    expect(descriptionPatch('same', 'same')).toBeNull();
    expect(descriptionPatch(null, null)).toBeNull();
    expect(descriptionPatch('', null)).toBeNull();
  });
});
