import { describe, expect, it } from 'vitest';
import catalogue from '../../__fixtures__/catalogue.json';
import type { Catalogue, CatalogueEntry } from '@/lib/api/types';
import {
  documentOutputFields,
  judgeError,
  judgeKeys,
  judgeRefusal,
  NO_JUDGE,
  serverJudgeErrors,
  takesProgram,
  takesProvider,
} from './judge';

const { rewards } = catalogue as unknown as Catalogue;

/** What Program.to_json() saves of the modules and outputs (the editor's fixtures' shape). */
const saved = (outputs: Record<string, string[]>) => ({
  program: {
    outputs: Object.keys(outputs),
    modules: [
      { name: 'input_layer', module: { config: { data_model: { schema: { properties: {} } } } } },
      ...Object.entries(outputs).map(([name, keys]) => ({
        name,
        module: {
          config: {
            data_model: { schema: { properties: Object.fromEntries(keys.map((k) => [k, {}])) } },
          },
        },
      })),
    ],
  },
});
const entry = (name: string) => rewards.find((r) => r.name === name) as CatalogueEntry;

describe('judges', () => {
  it('are the entries that call a model or run a program', () => {
    expect(takesProvider(entry('LMAsJudge'))).toBe(true);
    expect(takesProvider(entry('ProgramAsJudge'))).toBe(true);
    expect(takesProvider(entry('ExactMatch'))).toBe(false);
    expect(takesProgram(entry('ProgramAsJudge'))).toBe(true);
    expect(takesProgram(entry('LMAsJudge'))).toBe(false);
  });

  it("send the judge's provider only when one is picked, and the program's version id", () => {
    expect(judgeKeys(entry('LMAsJudge'), NO_JUDGE)).toEqual({});
    expect(judgeKeys(entry('LMAsJudge'), { ...NO_JUDGE, providerId: 4 })).toEqual({
      provider: 4,
    });
    const picked = { providerId: null, programId: 2, versionNumber: 3, versionId: 9 };
    expect(judgeKeys(entry('ProgramAsJudge'), picked)).toEqual({ program: 9 });
    expect(judgeKeys(entry('ExactMatch'), { ...picked, providerId: 4 })).toEqual({});
  });

  it('need a program version for a program judge', () => {
    expect(judgeError(entry('ProgramAsJudge'), NO_JUDGE)).toBe(
      'choose the judge program and its version',
    );
    expect(judgeError(entry('ProgramAsJudge'), { ...NO_JUDGE, versionId: 9 })).toBeNull();
    expect(judgeError(entry('LMAsJudge'), NO_JUDGE)).toBeNull();
  });

  it("read a program's output fields from its document and refuse one without reward", () => {
    expect(documentOutputFields(saved({ generator: ['answer'] }))).toEqual(['answer']);
    expect(documentOutputFields(saved({ draft: ['text'], final: ['text', 'reward'] }))).toEqual([
      'text',
      'reward',
    ]);
    expect(documentOutputFields({})).toBeNull();
    expect(judgeRefusal('qa v1', ['answer'])).toBe(
      "qa v1 cannot judge: its output needs a 'reward' field (a number in [0, 1]); its output fields are answer",
    );
    expect(judgeRefusal('judge v2', ['critique', 'reward'])).toBeNull();
    expect(judgeRefusal('unknown', null)).toBeNull(); // the server checks it then
  });

  it("read the server's errors at the judge's keys", () => {
    const problems = [
      { path: 'compile_config.reward.provider', message: 'you have no provider 3' },
      { path: 'compile_config.reward.program', message: 'cannot judge' },
      { path: 'compile_config.metrics[0].provider', message: 'other' },
    ];
    expect(serverJudgeErrors(problems, 'compile_config.reward')).toEqual({
      provider: 'you have no provider 3',
      program: 'cannot judge',
    });
  });
});
