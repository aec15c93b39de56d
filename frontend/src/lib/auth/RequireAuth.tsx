import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useMe } from '@/lib/api/ops/authMe';

/** Renders its children for a signed-in user; sends anyone else to /login (and back after). */
export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <div className="app-loading">Checking your session…</div>;
  if (me.isError)
    return (
      <div className="app-loading" role="alert">
        The server did not answer: {me.error.message}
      </div>
    );
  if (!me.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}
