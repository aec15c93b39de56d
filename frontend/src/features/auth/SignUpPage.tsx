import { useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { useMe } from '@/lib/api/ops/authMe';
import { FormField } from '@/lib/components/FormField';
import { useAuthConfig } from './api/authConfig';
import { useSignUp } from './api/authSignup';
import { safeNext } from './safeNext';

const FIELDS = ['username', 'password', 'email'] as const;

/** Registration (route /signup), while the server has it open; signs the new user in. */
export default function SignUpPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const me = useMe();
  const config = useAuthConfig();
  const signUp = useSignUp();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [email, setEmail] = useState('');
  if (me.data) return <Navigate to={next} replace />;
  const problems = signUp.error instanceof ApiError ? signUp.error.problems : [];
  const fieldError = (field: string) =>
    problems
      .filter((p) => p.path === field)
      .map((p) => p.message)
      .join(' ') || undefined;
  const general = signUp.isError
    ? problems.filter((p) => !(FIELDS as readonly string[]).includes(p.path))
    : [];
  const signInLink = `/login${next === '/programs' ? '' : `?next=${encodeURIComponent(next)}`}`;
  return (
    <section className="page" style={{ maxWidth: 380, paddingTop: 60 }}>
      {config.data && !config.data.registration_open ? (
        <div className="card">
          <h1 style={{ marginBottom: 14 }}>Sign-up is closed</h1>
          <p>This server does not take new accounts; ask its administrator for one.</p>
          <p>
            <Link to={signInLink}>Sign in</Link>
          </p>
        </div>
      ) : (
        <form
          className="card"
          aria-label="Sign up"
          onSubmit={(e) => {
            e.preventDefault();
            signUp.mutate(
              { username, password, ...(email ? { email } : {}) },
              { onSuccess: () => navigate(next, { replace: true }) },
            );
          }}
        >
          <h1 style={{ marginBottom: 14 }}>Create a Studio account</h1>
          <FormField label="Username" id="username" error={fieldError('username')} alert>
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
          <FormField
            label="Password"
            id="password"
            hint="At least 8 characters, and not a common password."
            error={fieldError('password')}
            alert
          >
            {(control) => (
              <input
                {...control}
                type="password"
                className="input"
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </FormField>
          <FormField label="Email (optional)" id="email" error={fieldError('email')} alert>
            {(control) => (
              <input
                {...control}
                type="email"
                className="input"
                autoComplete="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </FormField>
          {signUp.isError && (general.length > 0 || problems.length === 0) && (
            <p className="alert" role="alert">
              {general.length > 0 ? general.map((p) => p.message).join(' ') : signUp.error.message}
            </p>
          )}
          <button
            type="submit"
            className="btn btn-primary"
            disabled={signUp.isPending || !username || !password}
          >
            {signUp.isPending ? 'Creating your account…' : 'Sign up'}
          </button>
          <p className="note" style={{ marginTop: 14 }}>
            Already have an account? <Link to={signInLink}>Sign in</Link>
          </p>
        </form>
      )}
    </section>
  );
}
