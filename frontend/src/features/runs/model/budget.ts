/**
 * A run's budget in words: spent vs caps as meters on the run page, and the estimate
 * against the caps on the run form (studio/runs/config.py `max_calls`, `max_tokens`,
 * `max_cost`; optimizer_core/language_models/budget.py). Pure.
 */
import type { Budget } from './runView';

export type CapName = 'calls' | 'tokens' | 'cost';

export type BudgetMeter = {
  name: CapName;
  spent: number;
  cap: number;
  /** Spent / cap, 0-1 (a request may cross the cap: never above 1 here). */
  fraction: number;
  /** "calls 120 / 200", "cost $0.41 / $2.00". */
  text: string;
};

export type Caps = { max_calls: number | null; max_tokens: number | null; max_cost: number | null };

// Cents, except below a cent, where "$0.00" would hide a real figure ("$0.0031").
const money = (value: number) =>
  value > 0 && value < 0.01 ? `$${value.toPrecision(2)}` : `$${value.toFixed(2)}`;

function figure(name: CapName, value: number): string {
  return name === 'cost' ? money(value) : Math.round(value).toLocaleString('en-US');
}

/** One meter per cap the run has, in the order calls, tokens, cost. */
export function budgetMeters(budget: Budget | null): BudgetMeter[] {
  if (!budget) return [];
  const rows: [CapName, number, number | null][] = [
    ['calls', budget.calls, budget.max_calls],
    ['tokens', budget.tokens, budget.max_tokens],
    ['cost', budget.cost, budget.max_cost],
  ];
  return rows.flatMap(([name, spent, cap]) =>
    cap === null || cap <= 0
      ? []
      : [
          {
            name,
            spent,
            cap,
            fraction: Math.min(1, Math.max(0, spent / cap)),
            text: `${name} ${figure(name, spent)} / ${figure(name, cap)}`,
          },
        ],
  );
}

/** What the run form estimates; tokens and cost only where the estimate has them. */
export type Planned = { calls: number; tokens?: number | null; cost?: number | null };

const positive = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;

/** The caps among parsed fit values (empty or invalid: no cap). */
export function capsOf(values: Record<string, unknown>): Caps {
  return {
    max_calls: positive(values.max_calls),
    max_tokens: positive(values.max_tokens),
    max_cost: positive(values.max_cost),
  };
}

const NOUN: Record<CapName, string> = { calls: 'calls', tokens: 'tokens', cost: 'cost' };

/**
 * The estimate against each cap: "estimated 416 calls — over your cap of 300: the run
 * will stop early and keep its best program", or "within your cap of 500".
 */
export function capSentences(
  planned: Planned,
  caps: Caps,
): { name: CapName; over: boolean; text: string }[] {
  const rows: [CapName, number | null | undefined, number | null][] = [
    ['calls', planned.calls, caps.max_calls],
    ['tokens', planned.tokens, caps.max_tokens],
    ['cost', planned.cost, caps.max_cost],
  ];
  return rows.flatMap(([name, estimate, cap]) => {
    if (cap === null || estimate === null || estimate === undefined) return [];
    const est =
      name === 'cost'
        ? `estimated cost ${money(estimate)}`
        : `estimated ${figure(name, estimate)} ${NOUN[name]}`;
    const over = estimate > cap;
    const text = over
      ? `${est} — over your cap of ${figure(name, cap)}: the run will stop early and keep its best program`
      : `${est} — within your cap of ${figure(name, cap)}`;
    return [{ name, over, text }];
  });
}
