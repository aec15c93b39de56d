import { describe, expect, it } from 'vitest';
import type { Catalogue, Provider } from '@/lib/api/types';
import catalogueJson from '../__fixtures__/catalogue.json';
import { hasScorers, judgeIds, scoredBy, shorten } from './scoredBy';

const catalogue = catalogueJson as Catalogue;
const providers = [
  { id: 4, name: 'judge-gpt' },
  { id: 1, name: 'local' },
] as Provider[];

describe('scoredBy', () => {
  it('names a pinned code reward and its version, linking to the library editor there', () => {
    const config = {
      reward: {
        name: 'code_reward',
        params: { code: { id: 12, name: 'within_1pct', version: 3 }, in_mask: ['answer'] },
      },
      metrics: [
        { name: 'code_metric', params: { code: { id: 5, name: 'word_count', version: 1 } } },
      ],
    };
    expect(scoredBy(config, { catalogue })).toEqual([
      {
        slot: 'reward',
        title: 'Code reward within_1pct, version 3',
        link: '/rewards/12?version=3',
        details: ['reads only answer'],
      },
      {
        slot: 'metric',
        title: 'Code metric word_count, version 1',
        link: '/rewards/5?version=1',
        details: [],
      },
    ]);
  });

  it('says each field rule in words: field, comparison, tolerance or pattern, weight', () => {
    const config = {
      reward: {
        name: 'field_rules',
        params: {
          rules: [
            { field: 'answer', comparison: 'normalized', weight: 2 },
            { field: 'total', comparison: 'numeric', tolerance: 0.01, relative: true, weight: 1 },
            { field: 'delta', comparison: 'numeric', tolerance: 0.5, relative: false, weight: 1 },
            { field: 'code', comparison: 'regex', pattern: '[A-Z]{3}-\\d{4}', weight: 1 },
          ],
        },
      },
    };
    const [reward] = scoredBy(config, { catalogue });
    expect(reward!.title).toBe('Field rules');
    expect(reward!.details).toEqual([
      'answer: same text, any case or spacing (weight 2 of 5)',
      'total: a number within 1 % of the expected (weight 1 of 5)',
      'delta: a number within 0.5 of the expected (weight 1 of 5)',
      'code: matches the pattern [A-Z]{3}-\\d{4} (weight 1 of 5)',
      'the weighted mean of the rules',
    ]);
  });

  it("gives an LM judge's scale, shortened criteria and the judge's own provider", () => {
    const criteria = `The answer names the right city. ${'It is short and plain. '.repeat(10)}`;
    const config = {
      reward: {
        name: 'LMAsJudge',
        params: { score_type: 'Rating10', criteria },
        provider: 4,
      },
      metrics: [{ name: 'lm_as_judge_metric', params: {}, provider: 9 }],
    };
    const [reward, metric] = scoredBy(config, { catalogue, providers });
    expect(reward!.title).toBe('LM as judge');
    expect(reward!.details[0]).toBe('scale: Rating 1-10');
    expect(reward!.details[1]).toMatch(/^criteria: The answer names the right city\. It is/);
    expect(reward!.details[1]!.endsWith('…')).toBe(true);
    expect(reward!.details[1]!.length).toBeLessThan(140);
    expect(reward!.details[2]).toBe('judged by judge-gpt');
    // A metric in the other spelling, on the catalogue's default scale, its provider unknown.
    expect(metric).toEqual({
      slot: 'metric',
      title: 'LM as judge metric',
      details: [
        'scale: Score 0-1 in tenths',
        'criteria: none (correctness and completeness against the expected output)',
        'judged by provider #9',
      ],
    });
  });

  it("names a program judge's program and version, and the provider it runs on", () => {
    const config = {
      reward: { name: 'ProgramAsJudge', params: {}, program: 31, provider: 1 },
      metrics: [{ name: 'ProgramAsJudgeMetric', params: {}, program: 77 }],
    };
    const programVersions = new Map([[31, { program: 'strict grader', number: 2 }]]);
    const [reward, metric] = scoredBy(config, { catalogue, providers, programVersions });
    expect(reward).toEqual({
      slot: 'reward',
      title: 'Program as judge',
      details: ['judge program: strict grader, version 2', 'on local'],
    });
    expect(metric!.details).toEqual(['judge program: version #77', "on the run's provider"]);
  });

  it('lists the ids the judges name, and reads a bare name or no config at all', () => {
    const config = {
      reward: 'exact_match',
      metrics: [
        { name: 'ProgramAsJudgeMetric', params: {}, program: 77, provider: 4 },
        { name: 'LMAsJudgeMetric', params: {}, provider: 4 },
      ],
    };
    expect(judgeIds(config)).toEqual({ providers: [4], programVersions: [77] });
    expect(scoredBy(config, { catalogue })[0]).toEqual({
      slot: 'reward',
      title: 'Exact match',
      details: [],
    });
    expect(scoredBy(null)).toEqual([]);
    expect(hasScorers({})).toBe(false);
    expect(hasScorers(config)).toBe(true);
  });

  it('cuts long text at a word', () => {
    expect(shorten('one two three', 100)).toBe('one two three');
    expect(shorten('alpha beta gamma delta', 12)).toBe('alpha beta…');
  });
});
