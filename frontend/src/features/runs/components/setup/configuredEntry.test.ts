import { describe, expect, it } from 'vitest';
import catalogue from '../../__fixtures__/catalogue.json';
import type { Catalogue, CatalogueEntry } from '@/lib/api/types';
import { defaults, parseParams } from '../../model/runConfig';
import { builderDefaults, configuredEntry, plainParams, rulesParam } from './configuredEntry';
import { NO_JUDGE } from './judge';

const { rewards, metrics, comparisons } = catalogue as unknown as Catalogue;
const reward = (name: string) => rewards.find((r) => r.name === name) as CatalogueEntry;

function configured(entry: CatalogueEntry, extra: object = {}) {
  const form = { name: entry.name, values: defaults(entry.params), ...extra };
  return configuredEntry(entry, form, parseParams(entry.params, form.values), comparisons, [
    'answer',
  ]);
}

describe('a configured entry', () => {
  it('holds field rules for the entries that declare them, rewards and metrics alike', () => {
    expect(rulesParam(reward('FieldRules'))).toBe('rules');
    expect(rulesParam(metrics.find((m) => m.name === 'FieldRulesMetric'))).toBe('rules');
    expect(rulesParam(reward('ExactMatch'))).toBeNull();
    expect(builderDefaults(reward('FieldRules'), ['answer']).rules).toHaveLength(1);
    expect(builderDefaults(reward('LMAsJudge'), ['answer'])).toEqual({ judge: NO_JUDGE });
  });

  it('sends the rules as its params and is invalid until they are', () => {
    const entry = reward('FieldRules');
    const sent = configured(entry, builderDefaults(entry, ['answer']));
    expect(sent.valid).toBe(true);
    expect(sent.chosen).toEqual({
      name: 'FieldRules',
      params: { rules: [{ field: 'answer', comparison: 'exact', weight: 1 }] },
    });
    expect(configured(entry, { rules: [] }).valid).toBe(false);
  });

  it("leaves the judge's criteria and scale to the judge fields, and waits for a judge program", () => {
    expect(plainParams(reward('LMAsJudge'), reward('LMAsJudge').params).map((p) => p.name)).toEqual(
      expect.not.arrayContaining(['criteria', 'score_type']),
    );
    expect(plainParams(reward('FieldRules'), reward('FieldRules').params)).toEqual([]);
    const program = configured(reward('ProgramAsJudge'), { judge: NO_JUDGE });
    expect(program.valid).toBe(false);
    expect(program.judgeError).toBe('choose the judge program and its version');
    expect(
      configured(reward('ProgramAsJudge'), { judge: { ...NO_JUDGE, versionId: 7 } }).chosen,
    ).toEqual({ name: 'ProgramAsJudge', params: {}, program: 7 });
  });
});
