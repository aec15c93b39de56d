import { useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { useLogin } from '@/lib/api/ops/authLogin';
import { useMe } from '@/lib/api/ops/authMe';
import { FormField } from '@/lib/components/FormField';
import { useAuthConfig } from './api/authConfig';
import { safeNext } from './safeNext';

/**
 * Session sign-in (route /login); goes back to `?next=` afterwards. Links to sign-up while
 * the server has it open, and names the demo account where the server says it has its
 * default password (the embedded studio only).
 */
export default function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const me = useMe();
  const config = useAuthConfig();
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
        <FormField label="Username" id="username">
          {(control) => (
            <input
              {...control}
              className="input"
              autoComplete="username"
              autoFocus
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
          )}
        </FormField>
        <FormField label="Password" id="password">
          {(control) => (
            <input
              {...control}
              type="password"
              className="input"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </FormField>
        {login.isError && (
          <p className="alert" role="alert">
            {login.error.message}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={login.isPending || !username}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        {config.data?.demo_account && (
          <p className="note" style={{ marginTop: 14 }}>
            Demo account: <strong>{config.data.demo_account.username}</strong> /{' '}
            <code>{config.data.demo_account.password}</code>
          </p>
        )}
        {config.data?.registration_open && (
          <p className="note" style={{ marginTop: 14 }}>
            No account yet?{' '}
            <Link to={`/signup${params.get('next') ? `?next=${encodeURIComponent(next)}` : ''}`}>
              Sign up
            </Link>
          </p>
        )}
      </form>
    </section>
  );
}
