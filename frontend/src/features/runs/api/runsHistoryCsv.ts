import type { paths } from '@/lib/api/schema';

/** The download of a run's epochs (the server's `runs_history_csv`), one path of the schema. */
const HISTORY_CSV: keyof paths = '/api/runs/{id}/history/csv/';

/**
 * Where the browser downloads a run's epochs as CSV (an attachment, `run-<id>-history.csv`:
 * `epoch` and every figure logged, sorted, a row per epoch). A plain link: the session
 * cookie is all a GET needs.
 */
export function historyCsvUrl(id: number): string {
  return HISTORY_CSV.replace('{id}', String(id));
}
