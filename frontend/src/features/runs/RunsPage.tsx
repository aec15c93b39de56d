import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useRunsPage } from '@/lib/api/ops/runsList';
import { usePageParam } from '@/lib/api/pagination';
import { Pager } from '@/lib/components/Pager';
import type { Run } from '@/lib/api/types';
import { runRows, sortRows, type RunRow, type SortKey } from './model/runRows';

const COLUMNS: { key: SortKey; label: string; num?: boolean }[] = [
  { key: 'id', label: '#', num: true },
  { key: 'name', label: 'Name' },
  { key: 'state', label: 'State' },
  { key: 'epochs', label: 'Epochs', num: true },
  { key: 'before', label: 'Before', num: true },
  { key: 'after', label: 'After', num: true },
  { key: 'gain', label: 'Gain', num: true },
  { key: 'calls', label: 'LM calls', num: true },
  { key: 'cost', label: 'Cost', num: true },
  { key: 'created', label: 'Created' },
];

const fmt = (v: number | null, digits = 3) => (v === null ? '—' : v.toFixed(digits));

/** All runs (route /runs): sort by any column, filter by state or text, pick some to compare. */
export default function RunsPage() {
  const [page, setPage] = usePageParam();
  const runs = useRunsPage(page);
  const navigate = useNavigate();
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'id', desc: true });
  const [stateFilter, setStateFilter] = useState('');
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<number[]>([]);
  const rows = useMemo(() => {
    const all = runRows((runs.data?.results ?? []) as Run[]);
    const filtered = all.filter(
      (r) =>
        (!stateFilter || r.state === stateFilter) &&
        (!text || `${r.name} ${r.id}`.toLowerCase().includes(text.toLowerCase())),
    );
    return sortRows(filtered, sort.key, sort.desc);
  }, [runs.data, sort, stateFilter, text]);
  const toggle = (id: number) =>
    setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));
  return (
    <section className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <span className="spacer" />
        <input
          className="input"
          style={{ width: 200 }}
          aria-label="Filter runs"
          placeholder="Filter by name or #"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <select
          className="select"
          style={{ width: 140 }}
          aria-label="State"
          value={stateFilter}
          onChange={(e) => setStateFilter(e.target.value)}
        >
          <option value="">All states</option>
          {['queued', 'running', 'succeeded', 'failed', 'cancelled'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <button
          type="button"
          className="btn"
          disabled={picked.length < 1}
          onClick={() => navigate(`/compare?ids=${picked.join(',')}`)}
        >
          Compare {picked.length || ''}
        </button>
        <Link className="btn btn-primary" to="/runs/new">
          New run
        </Link>
      </div>
      {runs.isError && <div className="alert">{runs.error.message}</div>}
      <div className="card">
        <table className="table" aria-label="Runs">
          <thead>
            <tr>
              <th>
                <span className="visually-hidden">Pick</span>
              </th>
              {COLUMNS.map((c) => (
                <th
                  key={c.key}
                  className={c.num ? 'num' : ''}
                  aria-sort={sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
                >
                  <button
                    type="button"
                    onClick={() =>
                      setSort({ key: c.key, desc: sort.key === c.key ? !sort.desc : false })
                    }
                  >
                    {c.label}
                    {sort.key === c.key ? (sort.desc ? ' ▾' : ' ▴') : ''}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r: RunRow) => (
              <tr key={r.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Pick run ${r.id}`}
                    checked={picked.includes(r.id)}
                    onChange={() => toggle(r.id)}
                  />
                </td>
                <td className="num">
                  <Link to={`/runs/${r.id}`}>{r.id}</Link>
                </td>
                <td>
                  <Link to={`/runs/${r.id}`}>{r.name || `run ${r.id}`}</Link>
                </td>
                <td>
                  <span className={`badge badge-${r.state}`}>{r.state}</span>
                </td>
                <td className="num">{r.epochs}</td>
                <td className="num">{fmt(r.before)}</td>
                <td className="num">{fmt(r.after)}</td>
                <td className="num">{fmt(r.gain)}</td>
                <td className="num">{r.calls ?? '—'}</td>
                <td className="num">{r.cost === null ? '—' : `$${r.cost.toFixed(4)}`}</td>
                <td>{new Date(r.created).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {runs.data?.count === 0 && <p className="note">No run yet.</p>}
        <Pager page={page} data={runs.data} onPage={setPage} label="Runs" />
      </div>
    </section>
  );
}
