import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { lineageKey } from '../../api/runsLineage';

// React Flow and elk load only when someone opens the lineage.
const LineageView = lazy(() => import('./LineageView'));

/**
 * The run page's "Lineage" section: how the optimizer got there, opened on demand and
 * refetched as new candidates arrive (`candidates`: how many the run has reported).
 */
export function LineageSection({ runId, candidates }: { runId: number; candidates: number }) {
  const [open, setOpen] = useState(false);
  const client = useQueryClient();
  useEffect(() => {
    if (open) void client.invalidateQueries({ queryKey: lineageKey(runId) });
  }, [open, candidates, client, runId]);
  return (
    <div className="card">
      <div className="page-head" style={{ marginBottom: 6 }}>
        <h2 style={{ margin: 0 }}>Lineage</h2>
        <span className="note">how the optimizer got there</span>
        <span className="spacer" />
        <button
          type="button"
          className="btn"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? 'Hide the lineage' : 'Show the lineage'}
        </button>
      </div>
      {open ? (
        <Suspense fallback={<p className="note">Loading the lineage…</p>}>
          <LineageView runId={runId} />
        </Suspense>
      ) : (
        <p className="note">
          Each trainable variable's candidates from its initial value: their operation, reward and
          DNS score, which survived, and each one's changes and rows won or lost against its
          parents.
        </p>
      )}
    </div>
  );
}
