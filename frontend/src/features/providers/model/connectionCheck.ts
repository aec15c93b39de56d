import type { ConnectionCheck } from '../api/providersTest';

/** What a connection test said, in words: the answer, or the provider's reason. */
export function describeCheck(check: ConnectionCheck): string {
  const seconds = `${check.latency_s.toFixed(2)} s`;
  return check.ok
    ? `Answered in ${seconds}: ${check.answer ?? ''}`
    : `Failed after ${seconds}: ${check.error ?? 'no reason given'}`;
}
