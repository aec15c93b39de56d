import { useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useLogin } from '@/lib/api/ops/authLogin';
import { useMe } from '@/lib/api/ops/authMe';

/** Session sign-in (route /login); goes back to `?next=` afterwards. */
export default function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const me = useMe();
  const login = useLogin();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  if (me.data) return <Navigate to={next} replace />;
  return (
    <section className="page" style={{ maxWidth: 380, paddingTop: 60 }}>
      <form
        className="card"
        aria-label="Sign in"
        onSubmit={(e) => {
          e.preventDefault();
          login.mutate(
            { username, password },
            { onSuccess: () => navigate(next, { replace: true }) },
          );
        }}
      >
        <h1 style={{ marginBottom: 14 }}>Sign in to Studio</h1>
        <div className="form-row">
          <label htmlFor="username">Username</label>
          <input
            id="username"
            className="input"
            autoComplete="username"
            autoFocus
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </div>
        <div className="form-row">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            type="password"
            className="input"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        {login.isError && (
          <p className="alert" role="alert">
            {login.error.message}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={login.isPending || !username}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}

/** Only same-app paths: an open redirect through ?next= is refused. */
function safeNext(raw: string | null): string {
  return raw && raw.startsWith('/') && !raw.startsWith('//') ? raw : '/programs';
}
