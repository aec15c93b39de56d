import { useState } from 'react';
import { ApiError } from '@/lib/api/errors';
import {
  useCreateVersion,
  useVersionDiff,
  useVersionRows,
  useVersions,
  type DatasetVersion,
  type VersionDiff,
} from '../api/datasetsVersions';
import {
  addRow,
  draftSize,
  dropNewRow,
  editRow,
  emptyDraft,
  parseObject,
  toggleRemove,
  toRequest,
  undoEdit,
  type Draft,
  type Split,
} from '../model/versionDraft';

const PAGE = 25;

function json(value: unknown): string {
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

function shortDigest(digest: string | null | undefined): string {
  return digest ? digest.slice(0, 12) : 'indexing…';
}

/** The diff counts of a version against its parent: +added −removed ~changed. */
function DiffCounts({ version }: { version: DatasetVersion }) {
  if (version.parent === null) return <span className="note">{version.source}</span>;
  return (
    <span className="mono">
      +{version.added} −{version.removed} ~{version.changed}
    </span>
  );
}

function DiffTable({
  title,
  rows,
  kind,
}: {
  title: string;
  rows: VersionDiff['rows']['added'];
  kind: string;
}) {
  if (rows.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <div className="table-scroll">
        <table className="table mono" aria-label={title}>
          <thead>
            <tr>
              <th className="num">Row</th>
              <th>Split</th>
              {kind !== 'added' && <th>Before</th>}
              {kind !== 'removed' && <th>After</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.row_id} className={kind === 'removed' ? 'bad' : ''}>
                <td className="num">{r.row_id}</td>
                <td>{r.split}</td>
                {kind !== 'added' && (
                  <td>
                    {json(r.previous_input)} → {json(r.previous_output)}
                  </td>
                )}
                {kind !== 'removed' && (
                  <td>
                    {json(r.input)} → {json(r.output)}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** What version `number` changed against its parent, row by row. */
function VersionDiffView({ datasetId, version }: { datasetId: number; version: DatasetVersion }) {
  const diff = useVersionDiff(datasetId, version.number);
  if (version.parent === null) return null;
  if (!diff.data) return <p className="note">Loading the diff…</p>;
  const d = diff.data;
  return (
    <section aria-label={`Diff of version ${version.number}`} data-testid="version-diff">
      <h3>
        Version {version.number} against version {d.parent}: {d.added} added, {d.removed} removed,{' '}
        {d.changed} changed
      </h3>
      <DiffTable title="Added" rows={d.rows.added} kind="added" />
      <DiffTable title="Removed" rows={d.rows.removed} kind="removed" />
      <DiffTable title="Changed" rows={d.rows.changed} kind="changed" />
    </section>
  );
}

/** Two JSON text boxes (input, output) that report what does not parse. */
function RowForm({
  label,
  input,
  output,
  withSplit,
  onSubmit,
  onCancel,
}: {
  label: string;
  input: string;
  output: string;
  withSplit: boolean;
  onSubmit: (row: {
    input: Record<string, unknown>;
    output: Record<string, unknown>;
    split: Split;
  }) => void;
  onCancel?: () => void;
}) {
  const [inputText, setInputText] = useState(input);
  const [outputText, setOutputText] = useState(output);
  const [split, setSplit] = useState<Split>('auto');
  const [problem, setProblem] = useState('');
  return (
    <form
      aria-label={label}
      className="row-form"
      onSubmit={(e) => {
        e.preventDefault();
        const parsedInput = parseObject(inputText);
        const parsedOutput = parseObject(outputText);
        if ('error' in parsedInput) return setProblem(`input: ${parsedInput.error}`);
        if ('error' in parsedOutput) return setProblem(`output: ${parsedOutput.error}`);
        setProblem('');
        onSubmit({ input: parsedInput.value, output: parsedOutput.value, split });
      }}
    >
      <label>
        Input (JSON)
        <textarea value={inputText} onChange={(e) => setInputText(e.target.value)} rows={2} />
      </label>
      <label>
        Output (JSON)
        <textarea value={outputText} onChange={(e) => setOutputText(e.target.value)} rows={2} />
      </label>
      {withSplit && (
        <label>
          Split
          <select value={split} onChange={(e) => setSplit(e.target.value as Split)}>
            <option value="auto">auto (the dataset's test fraction)</option>
            <option value="train">train</option>
            <option value="test">test</option>
          </select>
        </label>
      )}
      {problem && (
        <div className="alert" role="alert">
          {problem}
        </div>
      )}
      <div>
        <button type="submit" className="btn btn-small">
          {withSplit ? 'Add row' : 'Keep edit'}
        </button>
        {onCancel && (
          <button type="button" className="btn btn-small btn-ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** A version's rows, paged, with edit and remove per row and the pending draft beside them. */
function RowsEditor({
  datasetId,
  version,
  onSaved,
}: {
  datasetId: number;
  version: DatasetVersion;
  onSaved: (number: number) => void;
}) {
  const [offset, setOffset] = useState(0);
  const [split, setSplit] = useState<'' | 'train' | 'test'>('');
  const rows = useVersionRows(datasetId, version.number, {
    offset,
    limit: PAGE,
    ...(split ? { split } : {}),
  });
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [editing, setEditing] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [message, setMessage] = useState('');
  const create = useCreateVersion(datasetId);
  const problems = create.error instanceof ApiError ? create.error.problems : [];
  const count = rows.data?.count ?? 0;
  return (
    <section aria-label={`Rows of version ${version.number}`}>
      <div className="page-head">
        <h3 style={{ margin: 0 }}>Rows of version {version.number}</h3>
        <select
          aria-label="Split"
          value={split}
          onChange={(e) => {
            setSplit(e.target.value as '' | 'train' | 'test');
            setOffset(0);
          }}
        >
          <option value="">all splits</option>
          <option value="train">train</option>
          <option value="test">test</option>
        </select>
        <span className="note">
          {count === 0 ? 0 : offset + 1}–{Math.min(offset + PAGE, count)} of {count}
        </span>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE))}
        >
          Previous
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          disabled={offset + PAGE >= count}
          onClick={() => setOffset(offset + PAGE)}
        >
          Next
        </button>
      </div>
      {rows.isError && <div className="alert">{rows.error.message}</div>}
      <div className="table-scroll">
        <table className="table mono" aria-label="Version rows">
          <thead>
            <tr>
              <th className="num">Row</th>
              <th>Split</th>
              <th>Input</th>
              <th>Output</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(rows.data?.rows ?? []).map((row) => {
              const removed = draft.remove.includes(row.row_id);
              const edit = draft.edit[row.row_id];
              return (
                <tr key={row.row_id} className={removed ? 'bad' : edit ? 'changed' : ''}>
                  <td className="num">{row.row_id}</td>
                  <td>{row.split}</td>
                  {editing === row.row_id ? (
                    <td colSpan={2}>
                      <RowForm
                        label={`Edit row ${row.row_id}`}
                        input={JSON.stringify(edit?.input ?? row.input)}
                        output={JSON.stringify(edit?.output ?? row.output)}
                        withSplit={false}
                        onCancel={() => setEditing(null)}
                        onSubmit={(next) => {
                          setDraft(
                            editRow(draft, row.row_id, { input: next.input, output: next.output }),
                          );
                          setEditing(null);
                        }}
                      />
                    </td>
                  ) : (
                    <>
                      <td>{json(edit?.input ?? row.input)}</td>
                      <td>{json(edit?.output ?? row.output)}</td>
                    </>
                  )}
                  <td>
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      aria-label={`Edit row ${row.row_id}`}
                      onClick={() => setEditing(row.row_id)}
                    >
                      Edit
                    </button>
                    {edit && (
                      <button
                        type="button"
                        className="btn btn-small btn-ghost"
                        onClick={() => setDraft(undoEdit(draft, row.row_id))}
                      >
                        Undo
                      </button>
                    )}
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      aria-label={`${removed ? 'Keep' : 'Remove'} row ${row.row_id}`}
                      onClick={() => setDraft(toggleRemove(draft, row.row_id))}
                    >
                      {removed ? 'Keep' : 'Remove'}
                    </button>
                  </td>
                </tr>
              );
            })}
            {draft.add.map((row, index) => (
              <tr key={`new-${index}`} className="changed">
                <td className="num">new</td>
                <td>{row.split}</td>
                <td>{json(row.input)}</td>
                <td>{json(row.output)}</td>
                <td>
                  <button
                    type="button"
                    className="btn btn-small btn-ghost"
                    onClick={() => setDraft(dropNewRow(draft, index))}
                  >
                    Drop
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {adding ? (
        <RowForm
          label="New row"
          input="{}"
          output="{}"
          withSplit
          onCancel={() => setAdding(false)}
          onSubmit={(row) => {
            setDraft(addRow(draft, row));
            setAdding(false);
          }}
        />
      ) : (
        <button type="button" className="btn btn-small" onClick={() => setAdding(true)}>
          Add a row
        </button>
      )}
      {draftSize(draft) > 0 && (
        <form
          aria-label="Save version"
          className="page-head"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(toRequest(draft, version.number, message), {
              onSuccess: (saved) => {
                setDraft(emptyDraft);
                setMessage('');
                onSaved(saved.number);
              },
            });
          }}
        >
          <span data-testid="draft-size">
            {draft.add.length} to add, {draft.remove.length} to remove,{' '}
            {Object.keys(draft.edit).length} edited
          </span>
          <input
            aria-label="What changed"
            placeholder="What changed"
            value={message}
            onChange={(e) => setMessage(e.target.value)}
          />
          <button type="submit" className="btn btn-primary" disabled={create.isPending}>
            Save as a new version
          </button>
          <button type="button" className="btn btn-ghost" onClick={() => setDraft(emptyDraft)}>
            Discard
          </button>
        </form>
      )}
      {problems.length > 0 && (
        <ul className="alert" role="alert">
          {problems.map((p, i) => (
            <li key={`${p.path}-${i}`}>
              {p.path ? <span className="mono">{p.path}: </span> : null}
              {p.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A dataset's versions: each one's counts, digest and diff; its rows, editable into the next. */
export function VersionsPanel({ datasetId }: { datasetId: number }) {
  const versions = useVersions(datasetId);
  const [selected, setSelected] = useState<number | null>(null);
  if (versions.isError) return <div className="alert">{versions.error.message}</div>;
  if (!versions.data) return <p className="note">Loading versions…</p>;
  const current = versions.data.find((v) => v.number === selected) ?? versions.data[0];
  if (!current) return null;
  return (
    <section aria-label="Versions">
      <h3>Versions</h3>
      <p className="note">
        Versions never change: edits, removals and added rows make the next one. A run records the
        version it trained and tested on.
      </p>
      <div className="table-scroll">
        <table className="table" aria-label="Dataset versions">
          <thead>
            <tr>
              <th className="num">Version</th>
              <th>Changes</th>
              <th className="num">Rows</th>
              <th className="num">Train / test</th>
              <th>Digest</th>
              <th>Message</th>
            </tr>
          </thead>
          <tbody>
            {versions.data.map((v) => (
              <tr key={v.number} aria-selected={v.number === current.number}>
                <td className="num">
                  <button
                    type="button"
                    className="btn btn-small btn-ghost"
                    onClick={() => setSelected(v.number)}
                  >
                    {v.number === current.number ? '▸ ' : ''}v{v.number}
                  </button>
                </td>
                <td>
                  <DiffCounts version={v} />
                </td>
                <td className="num">{v.row_count}</td>
                <td className="num">
                  {v.train_count} / {v.test_count}
                </td>
                <td className="mono" title={v.digest ?? ''}>
                  {shortDigest(v.digest)}
                </td>
                <td>{v.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <VersionDiffView key={`diff-${current.number}`} datasetId={datasetId} version={current} />
      <RowsEditor
        key={`rows-${current.number}`}
        datasetId={datasetId}
        version={current}
        onSaved={setSelected}
      />
    </section>
  );
}
