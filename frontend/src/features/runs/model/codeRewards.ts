/** A code reward or metric of the user's library, as a run config names it. */
export type CodePick = { name: string; version: number | null };
/** What the run form's code picker chose: the reward slot's code (or none) and code metrics. */
export type CodeChoice = { reward: CodePick | null; metrics: CodePick[] };

export const NO_CODE: CodeChoice = { reward: null, metrics: [] };

/** The masks a code reward takes over from the reward chosen above it. */
const MASKS = ['in_mask', 'out_mask', 'in_mask_pattern', 'out_mask_pattern'];

function code(pick: CodePick) {
  return pick.version === null ? { name: pick.name } : { name: pick.name, version: pick.version };
}

/**
 * The compile config with the code picks in it: a code reward replaces the reward (keeping
 * its output-field masks), each code metric is added to the metrics. No version: the newest,
 * which the server pins and records on the run.
 */
export function withCodeRewards(
  config: Record<string, unknown>,
  choice: CodeChoice,
): Record<string, unknown> {
  const reward = config.reward as { params?: Record<string, unknown> } | undefined;
  const metrics = Array.isArray(config.metrics) ? (config.metrics as unknown[]) : [];
  const masks = Object.fromEntries(
    Object.entries(reward?.params ?? {}).filter(
      ([key, value]) => MASKS.includes(key) && value !== null && value !== undefined,
    ),
  );
  return {
    ...config,
    reward: choice.reward
      ? { name: 'code_reward', params: { code: code(choice.reward), ...masks } }
      : config.reward,
    metrics: [
      ...metrics,
      ...choice.metrics.map((pick) => ({ name: 'code_metric', params: { code: code(pick) } })),
    ],
  };
}
