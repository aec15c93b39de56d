import { useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useDatasets } from '@/lib/api/ops/datasetsList';
import { usePrograms } from '@/lib/api/ops/programsList';
import { useRunsPage, type RunFilters } from '@/lib/api/ops/runsList';
import { usePageParam } from '@/lib/api/pagination';
import { Pager } from '@/lib/components/Pager';
import { signed } from '@/lib/verdict';
import type { Run } from '@/lib/api/types';
import { useCatalogue } from './api/catalogue';
import { filtersFromParams, RUN_STATES, withFilter } from './model/runFilters';
import { runRows, sortRows, type RunRow, type SortKey } from './model/runRows';

const COLUMNS: { key: SortKey; label: string; num?: boolean }[] = [
  { key: 'id', label: '#', num: true },
  { key: 'name', label: 'Name' },
  { key: 'state', label: 'State' },
  { key: 'program', label: 'Program' },
  { key: 'dataset', label: 'Dataset' },
  { key: 'optimizer', label: 'Optimizer' },
  { key: 'epochs', label: 'Epochs', num: true },
  { key: 'before', label: 'Before', num: true },
  { key: 'after', label: 'After', num: true },
  { key: 'gain', label: 'Gain', num: true },
  { key: 'calls', label: 'LM calls', num: true },
  { key: 'cost', label: 'Cost', num: true },
  { key: 'created', label: 'Created' },
];

const fmt = (v: number | null, digits = 3) => (v === null ? '—' : v.toFixed(digits));

type Choice = { value: string; label: string };

/** One filter of the list: a select whose empty choice means "any". */
function FilterSelect({
  label,
  any,
  value,
  choices,
  onChange,
}: {
  label: string;
  any: string;
  value: string;
  choices: Choice[];
  onChange: (value: string) => void;
}) {
  // A value from the URL that the lists do not hold (yet) still shows as chosen.
  const all =
    value && !choices.some((c) => c.value === value)
      ? [...choices, { value, label: value }]
      : choices;
  return (
    <select
      className="select"
      style={{ width: 170 }}
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    >
      <option value="">{any}</option>
      {all.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      ))}
    </select>
  );
}

/**
 * All runs (route /runs): the server filters by program, dataset, optimizer and state (kept
 * in the URL, over every page, as MLflow's runs table does); sort by any column, filter the
 * page shown by text, pick runs to compare.
 */
export default function RunsPage() {
  const [page, setPage] = usePageParam();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFromParams(params), [params]);
  const runs = useRunsPage(page, filters);
  const programs = usePrograms();
  const datasets = useDatasets();
  const catalogue = useCatalogue();
  const navigate = useNavigate();
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'id', desc: true });
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<number[]>([]);
  const rows = useMemo(() => {
    const all = runRows((runs.data?.results ?? []) as Run[]);
    const filtered = all.filter(
      (r) => !text || `${r.name} ${r.id}`.toLowerCase().includes(text.toLowerCase()),
    );
    return sortRows(filtered, sort.key, sort.desc);
  }, [runs.data, sort, text]);
  const setFilter = (key: keyof RunFilters, value: string) =>
    setParams((current) => withFilter(current, key, value));
  const filtering = Object.keys(filters).length > 0;
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
      <div
        role="group"
        aria-label="Filters"
        style={{
          display: 'flex',
          gap: 10,
          flexWrap: 'wrap',
          alignItems: 'center',
          margin: '10px 0',
        }}
      >
        <FilterSelect
          label="Program"
          any="All programs"
          value={filters.program ? String(filters.program) : ''}
          choices={(programs.data ?? []).map((p) => ({ value: String(p.id), label: p.name }))}
          onChange={(value) => setFilter('program', value)}
        />
        <FilterSelect
          label="Dataset"
          any="All datasets"
          value={filters.dataset ? String(filters.dataset) : ''}
          choices={(datasets.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))}
          onChange={(value) => setFilter('dataset', value)}
        />
        <FilterSelect
          label="Optimizer"
          any="All optimizers"
          value={filters.optimizer ?? ''}
          choices={(catalogue.data?.optimizers ?? []).map((o) => ({
            value: o.name,
            label: o.label,
          }))}
          onChange={(value) => setFilter('optimizer', value)}
        />
        <FilterSelect
          label="State"
          any="All states"
          value={filters.state ?? ''}
          choices={RUN_STATES.map((s) => ({ value: s, label: s }))}
          onChange={(value) => setFilter('state', value)}
        />
        {filtering && (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => setParams(new URLSearchParams())}
          >
            Clear filters
          </button>
        )}
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
                <td>{r.program}</td>
                <td>{r.dataset}</td>
                <td className="mono">{r.optimizer ?? '—'}</td>
                <td className="num">{r.epochs}</td>
                <td className="num">{fmt(r.before)}</td>
                <td className="num">{fmt(r.after)}</td>
                <td className="num" title={r.gainInterval ?? undefined}>
                  {r.gain === null ? '—' : signed(r.gain)}
                  {r.verdict && (
                    <span className="note" style={{ display: 'block' }}>
                      {r.verdict} {r.gainInterval}
                    </span>
                  )}
                </td>
                <td className="num">{r.calls ?? '—'}</td>
                <td className="num">{r.cost === null ? '—' : `$${r.cost.toFixed(4)}`}</td>
                <td>{new Date(r.created).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {runs.data?.count === 0 && (
          <p className="note">{filtering ? 'No run matches these filters.' : 'No run yet.'}</p>
        )}
        <Pager page={page} data={runs.data} onPage={setPage} label="Runs" />
      </div>
    </section>
  );
}
