import { describe, expect, it } from 'vitest';
import { diffExamples, diffText, diffValue, type Segment } from './candidateDiff';

const text = (segments: Segment[], keep: Segment['kind']) =>
  segments
    .filter((s) => s.kind === 'same' || s.kind === keep)
    .map((s) => s.text)
    .join('');

describe('diffText', () => {
  it('marks the words added and removed, in reading order', () => {
    const segments = diffText('Answer with the city name.', 'Answer with the capital city only.');
    expect(segments).toEqual([
      { kind: 'same', text: 'Answer with the ' },
      { kind: 'added', text: 'capital ' },
      { kind: 'same', text: 'city ' },
      { kind: 'removed', text: 'name.' },
      { kind: 'added', text: 'only.' },
    ]);
  });

  it('keeps a rewritten sentence in one piece instead of alternating word by word', () => {
    expect(diffText('Answer with a JSON object.', 'Name the capital city only.')).toEqual([
      { kind: 'removed', text: 'Answer with a JSON object.' },
      { kind: 'added', text: 'Name the capital city only.' },
    ]);
    expect(diffText('Be brief. Answer with a JSON object.', 'Be brief. Name the city.')).toEqual([
      { kind: 'same', text: 'Be brief. ' },
      { kind: 'removed', text: 'Answer with a JSON object.' },
      { kind: 'added', text: 'Name the city.' },
    ]);
  });

  it('gives both texts back', () => {
    const before = 'Think step by step.\nThen answer in one word.';
    const after = 'Think briefly.\nThen answer in one word, in English.';
    const segments = diffText(before, after);
    expect(text(segments, 'removed')).toBe(before);
    expect(text(segments, 'added')).toBe(after);
  });

  it('handles equal and empty texts', () => {
    expect(diffText('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
    expect(diffText('', '')).toEqual([]);
    expect(diffText('', 'new words')).toEqual([{ kind: 'added', text: 'new words' }]);
  });
});

describe('diffExamples', () => {
  const paris = { inputs: { q: 'France' }, outputs: { a: 'Paris' }, reward: 1 };
  const lima = { inputs: { q: 'Peru' }, outputs: { a: 'Lima' }, reward: 1 };
  const rome = { inputs: { q: 'Italy' }, outputs: { a: 'Rome' }, reward: 0 };

  it('lists the examples added and removed; a changed reward is the same example', () => {
    const diff = diffExamples([paris, rome], [{ ...paris, reward: 0.5 }, lima]);
    expect(diff).toEqual({ added: [lima], removed: [rome], kept: 1 });
  });

  it('counts duplicates', () => {
    expect(diffExamples([paris], [paris, paris])).toEqual({ added: [paris], removed: [], kept: 1 });
  });
});

describe('diffValue', () => {
  it('diffs each field by its kind, fields only the parent had last', () => {
    const diffs = diffValue(
      { instructions: 'Answer.', examples: [], temperature: 0.2, old: 1 },
      { instructions: 'Answer briefly.', examples: [{ inputs: 1, outputs: 2 }], temperature: 0.2 },
    );
    expect(diffs.map((d) => [d.field, d.kind, d.changed])).toEqual([
      ['instructions', 'text', true],
      ['examples', 'examples', true],
      ['temperature', 'json', false],
      ['old', 'json', true],
    ]);
  });

  it('shows every field as new without a parent value', () => {
    const [instructions] = diffValue(null, { instructions: 'Hi there' });
    expect(instructions).toEqual({
      field: 'instructions',
      kind: 'text',
      changed: true,
      segments: [{ kind: 'added', text: 'Hi there' }],
    });
  });
});
