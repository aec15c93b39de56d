import { useState } from 'react';
import { useDatasetsPage } from '@/lib/api/ops/datasetsList';
import { usePageParam } from '@/lib/api/pagination';
import { Pager } from '@/lib/components/Pager';
import { Catalogue } from './components/Catalogue';
import { DatasetDetail } from './components/DatasetDetail';
import { UploadForm } from './components/UploadForm';

/** Datasets (route /datasets): upload with a field mapping, row errors, preview, built-ins. */
export default function DatasetsPage() {
  const [page, setPage] = usePageParam();
  const datasets = useDatasetsPage(page);
  const [selected, setSelected] = useState<number | null>(null);
  const current = selected ?? datasets.data?.results[0]?.id ?? null;
  return (
    <section className="page">
      <div className="page-head">
        <h1>Datasets</h1>
      </div>
      <div className="grid-2">
        <UploadForm onUploaded={setSelected} />
        <section className="card" aria-label="Your datasets">
          <h2>Your datasets</h2>
          {datasets.isError && <div className="alert">{datasets.error.message}</div>}
          {datasets.data?.count === 0 && <p className="note">None yet.</p>}
          <div className="table-scroll">
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Status</th>
                  <th className="num">Rows</th>
                  <th className="num">Errors</th>
                </tr>
              </thead>
              <tbody>
                {(datasets.data?.results ?? []).map((d) => (
                  <tr key={d.id} aria-selected={d.id === current}>
                    <td>
                      <button
                        type="button"
                        className="btn btn-small btn-ghost"
                        onClick={() => setSelected(d.id)}
                      >
                        {d.id === current ? '▸ ' : ''}
                        {d.name}
                      </button>
                    </td>
                    <td>
                      <span className={`badge badge-${d.status}`}>{d.status}</span>
                    </td>
                    <td className="num">{d.latest_row_count}</td>
                    <td className="num">{d.error_count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} data={datasets.data} onPage={setPage} label="Datasets" />
        </section>
      </div>
      {current !== null && <DatasetDetail key={current} datasetId={current} />}
      <Catalogue onAdded={setSelected} />
    </section>
  );
}
