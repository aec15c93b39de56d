import { describe, expect, it } from 'vitest';
import { NO_CODE, withCodeRewards } from './codeRewards';

const CONFIG = {
  reward: { name: 'exact_match', params: { in_mask: ['answer'], out_mask: null } },
  metrics: [{ name: 'f1_score', params: {} }],
  optimizer: { name: 'omega', params: {} },
};

describe('withCodeRewards', () => {
  it('leaves the config as it is with no code picked', () => {
    expect(withCodeRewards(CONFIG, NO_CODE)).toEqual(CONFIG);
  });

  it('puts a code reward in the reward slot, keeping its masks', () => {
    const config = withCodeRewards(CONFIG, {
      reward: { name: 'within 1%', version: 3 },
      metrics: [],
    });
    expect(config.reward).toEqual({
      name: 'code_reward',
      params: { code: { name: 'within 1%', version: 3 }, in_mask: ['answer'] },
    });
    expect(config.optimizer).toEqual(CONFIG.optimizer);
  });

  it('adds code metrics, the newest version when none is picked', () => {
    const config = withCodeRewards(CONFIG, {
      reward: null,
      metrics: [{ name: 'words', version: null }],
    });
    expect(config.metrics).toEqual([
      { name: 'f1_score', params: {} },
      { name: 'code_metric', params: { code: { name: 'words' } } },
    ]);
  });
});
