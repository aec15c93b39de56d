import { useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { useProgramsPage } from '@/lib/api/ops/programsList';
import { usePageParam } from '@/lib/api/pagination';
import { Pager } from '@/lib/components/Pager';
import { useImportProgram } from './api/programsImport';
import { newProgram } from './actions/loadDocument';
import { useEditorStore } from './store/editorStore';
import { useServerProgram } from './store/serverProgram';

/** The user's programs (route /programs): open one in the editor, import, export, start new. */
export default function ProgramsPage() {
  const [page, setPage] = usePageParam();
  const programs = useProgramsPage(page);
  const importing = useImportProgram();
  const navigate = useNavigate();
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <section className="page">
      <div className="page-head">
        <h1>Programs</h1>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => {
            useServerProgram.setState({ programId: null, version: null, problems: [] });
            useEditorStore.getState().run(newProgram, undefined);
            navigate('/editor');
          }}
        >
          New program
        </button>
        <button type="button" className="btn" onClick={() => fileInput.current?.click()}>
          Import…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept="application/json,.json"
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Program file to import"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file)
              importing.mutate(file, { onSuccess: (program) => navigate(`/editor/${program.id}`) });
          }}
        />
      </div>
      {importing.isError && (
        <div className="alert" role="alert">
          Import failed: {importing.error.message}
        </div>
      )}
      {programs.isError && <div className="alert">{programs.error.message}</div>}
      <div className="card">
        {programs.isPending ? (
          <p className="note">Loading…</p>
        ) : programs.data?.results.length ? (
          <table className="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th className="num">Versions</th>
                <th>Updated</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {programs.data.results.map((p) => (
                <tr key={p.id}>
                  <td>
                    <Link to={`/editor/${p.id}`}>{p.name}</Link>
                  </td>
                  <td>{p.description || '—'}</td>
                  <td className="num">{p.version_count}</td>
                  <td>{new Date(p.updated_at).toLocaleString()}</td>
                  <td>
                    {p.latest_version !== null && p.latest_version !== undefined && (
                      <a
                        className="btn btn-small"
                        href={`/api/programs/${p.id}/versions/${p.latest_version}/export/`}
                        download
                      >
                        Export
                      </a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="note">No program yet: start a new one, or import an exported file.</p>
        )}
        <Pager page={page} data={programs.data} onPage={setPage} label="Programs" />
      </div>
    </section>
  );
}
