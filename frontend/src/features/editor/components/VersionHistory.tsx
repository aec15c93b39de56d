import { useEffect, useRef, useState } from 'react';
import { useVersions } from '@/lib/api/ops/programsVersionsList';
import { PromptExport } from '@/lib/components/PromptExport';
import { useDiff } from '../api/programsDiff';
import styles from './editor.module.css';

function short(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** A program's versions; pick two to see what changed, or open one on the canvas. */
export function VersionHistory({
  programId,
  current,
  onOpen,
  onClose,
}: {
  programId: number;
  current: number | null;
  onOpen: (number: number) => void;
  onClose: () => void;
}) {
  const versions = useVersions(programId);
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [exporting, setExporting] = useState<number | null>(null);
  const list = versions.data ?? [];
  const newest = list[0]?.number ?? null;
  const fromNumber = from ?? list[1]?.number ?? null;
  const toNumber = to ?? newest;
  const diff = useDiff(programId, fromNumber, toNumber);
  const messageOf = (number: number | null) =>
    list.find((v) => v.number === number)?.message || 'no message';
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const node = dialog.current;
    if (node && !node.open) node.showModal?.();
  }, []);
  return (
    <dialog
      ref={dialog}
      className={styles.historyDialog}
      aria-label="Version history"
      onClose={onClose}
      onCancel={onClose}
    >
      <div className={styles.historyHead}>
        <h2>Version history</h2>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      {versions.isError && <p className="alert">{versions.error.message}</p>}
      <table className="table">
        <thead>
          <tr>
            <th>Version</th>
            <th>Message</th>
            <th>Saved</th>
            <th>From</th>
            <th>To</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((v) => (
            <tr key={v.id}>
              <td>
                v{v.number}
                {v.number === current ? ' (on canvas)' : ''}
              </td>
              <td>{v.message || '—'}</td>
              <td>{new Date(v.created_at).toLocaleString()}</td>
              <td>
                <input
                  type="radio"
                  name="diff-from"
                  aria-label={`Diff from v${v.number}`}
                  checked={fromNumber === v.number}
                  onChange={() => setFrom(v.number)}
                />
              </td>
              <td>
                <input
                  type="radio"
                  name="diff-to"
                  aria-label={`Diff to v${v.number}`}
                  checked={toNumber === v.number}
                  onChange={() => setTo(v.number)}
                />
              </td>
              <td>
                <button type="button" className="btn btn-small" onClick={() => onOpen(v.number)}>
                  Open
                </button>{' '}
                <button
                  type="button"
                  className="btn btn-small"
                  aria-label={`Export the prompt of v${v.number}`}
                  onClick={() => setExporting(v.number)}
                >
                  Prompt
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {fromNumber !== null && toNumber !== null && fromNumber !== toNumber && (
        <section aria-label="Diff" style={{ marginTop: 12 }}>
          <h3>
            v{fromNumber} → v{toNumber}
          </h3>
          <dl className={styles.diffMessages}>
            <dt>v{fromNumber}</dt>
            <dd>{messageOf(fromNumber)}</dd>
            <dt>v{toNumber}</dt>
            <dd>{messageOf(toNumber)}</dd>
          </dl>
          {diff.isError && <p className="alert">{diff.error.message}</p>}
          {diff.data && (
            <>
              <p className="note">
                {Object.entries(diff.data.summary)
                  .filter(([, names]) => names.length > 0)
                  .map(([key, names]) => `${key.replaceAll('_', ' ')}: ${names.join(', ')}`)
                  .join(' · ') || 'No module changed.'}
              </p>
              <div className="table-scroll">
                <table className="table mono">
                  <thead>
                    <tr>
                      <th>Path</th>
                      <th>Change</th>
                      <th>Before</th>
                      <th>After</th>
                    </tr>
                  </thead>
                  <tbody>
                    {diff.data.changes.map((c) => (
                      <tr key={c.path}>
                        <td>{c.path}</td>
                        <td>{c.op}</td>
                        <td className={c.old === null ? '' : 'diff-old'}>{short(c.old)}</td>
                        <td className={c.new === null ? '' : 'diff-new'}>{short(c.new)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </section>
      )}
      {exporting !== null && (
        <PromptExport
          source={{ kind: 'version', programId, number: exporting }}
          onClose={() => setExporting(null)}
        />
      )}
    </dialog>
  );
}
