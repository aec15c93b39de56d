import { useAddBuiltin } from '../api/datasetsBuiltinCreate';
import { useCatalogue } from '../api/datasetsCatalogue';

/** Built-in datasets: add one to your datasets without an upload. */
export function Catalogue({ onAdded }: { onAdded: (datasetId: number) => void }) {
  const catalogue = useCatalogue();
  const add = useAddBuiltin();
  return (
    <section className="card" aria-label="Built-in datasets">
      <h2>Built-in datasets</h2>
      {catalogue.isError && <div className="alert">{catalogue.error.message}</div>}
      {add.isError && <div className="alert">{add.error.message}</div>}
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Task</th>
            <th>Rows</th>
            <th>Licence</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(catalogue.data ?? []).map((entry) => (
            <tr key={entry.name}>
              <td title={entry.description}>
                <b>{entry.title}</b>
                <div className="note">{entry.description}</div>
              </td>
              <td>{entry.task}</td>
              <td>
                {Object.entries(entry.sizes)
                  .map(([split, n]) => `${split} ${n}`)
                  .join(', ')}
              </td>
              <td>{entry.licence}</td>
              <td>
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={add.isPending}
                  onClick={() =>
                    add.mutate({ builtin_name: entry.name }, { onSuccess: (d) => onAdded(d.id) })
                  }
                >
                  Add
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
