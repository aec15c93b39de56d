import { useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useLogin } from '@/lib/api/ops/authLogin';
import { useMe } from '@/lib/api/ops/authMe';
import { FormField } from '@/lib/components/FormField';

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
      </form>
    </section>
  );
}

/** Only same-app paths: an open redirect through ?next= is refused. */
function safeNext(raw: string | null): string {
  return raw && raw.startsWith('/') && !raw.startsWith('//') ? raw : '/programs';
}
