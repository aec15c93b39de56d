import { Link } from 'react-router';
import { useHistory } from '../api/deploymentsHistory';
import type { Deployment } from '../api/types';

/** Every target the deployment served, newest first; the current one marked. */
export function HistoryTable({ deployment }: { deployment: Deployment }) {
  const history = useHistory(deployment.name);
  return (
    <div className="card">
      <h2>History</h2>
      {history.isError && <div className="alert">{history.error.message}</div>}
      <table className="table" aria-label="History">
        <thead>
          <tr>
            <th>When</th>
            <th>Change</th>
            <th>Run</th>
            <th>Program</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(history.data ?? []).map((target) => (
            <tr key={target.id}>
              <td>{new Date(target.created_at).toLocaleString()}</td>
              <td>{target.reason}</td>
              <td>
                {target.run !== null ? (
                  <Link to={`/runs/${target.run}`}>
                    #{target.run} {target.run_name}
                  </Link>
                ) : (
                  '—'
                )}
              </td>
              <td>
                {target.program_name} v{target.version_number}
              </td>
              <td>
                {target.id === deployment.target.id && <span className="badge">serving</span>}
                {target.id === deployment.previous?.id && <span className="badge">previous</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
