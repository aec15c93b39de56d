import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import SignInPage from './SignInPage';
import SignUpPage from './SignUpPage';

const SIGNED_OUT: [number, unknown] = [
  403,
  { detail: 'Authentication credentials were not provided.' },
];
const NEW_USER = {
  id: 7,
  username: 'newcomer',
  email: null,
  first_name: '',
  last_name: '',
  is_staff: false,
};

function Where() {
  const location = useLocation();
  return <p data-testid="where">{`${location.pathname}${location.search}`}</p>;
}

function renderAt(path: string) {
  return renderRoutes(
    path,
    <>
      <Route path="/login" element={<SignInPage />} />
      <Route path="/signup" element={<SignUpPage />} />
      <Route path="*" element={<Where />} />
    </>,
  );
}

stubApiPerTest();

describe('SignInPage', () => {
  it('names the demo account when the server says it has its default password', async () => {
    mockFetch({
      'GET /api/auth/me/': SIGNED_OUT,
      'GET /api/auth/config/': [
        200,
        {
          registration_open: true,
          demo_account: { username: 'demo', password: 'demo-password-change-me' },
        },
      ],
    });
    renderAt('/login');
    const hint = await screen.findByText(/Demo account:/);
    expect(hint).toHaveTextContent('Demo account: demo / demo-password-change-me');
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
  });

  it('says nothing of a demo account or sign-up when the server offers neither', async () => {
    mockFetch({
      'GET /api/auth/me/': SIGNED_OUT,
      'GET /api/auth/config/': [200, { registration_open: false, demo_account: null }],
    });
    renderAt('/login?next=%2Fruns');
    await screen.findByRole('form', { name: 'Sign in' });
    await waitFor(() => expect(screen.queryByText(/Demo account/)).not.toBeInTheDocument());
    expect(screen.queryByRole('link', { name: 'Sign up' })).not.toBeInTheDocument();
  });

  it('keeps where to go after signing in on the sign-up link', async () => {
    mockFetch({
      'GET /api/auth/me/': SIGNED_OUT,
      'GET /api/auth/config/': [200, { registration_open: true, demo_account: null }],
    });
    renderAt('/login?next=%2Fruns');
    expect(await screen.findByRole('link', { name: 'Sign up' })).toHaveAttribute(
      'href',
      '/signup?next=%2Fruns',
    );
  });
});

describe('SignUpPage', () => {
  it('registers, signs in and goes on', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/auth/me/': SIGNED_OUT,
      'GET /api/auth/config/': [200, { registration_open: true, demo_account: null }],
      'POST /api/auth/signup/': [201, NEW_USER],
    });
    renderAt('/signup?next=%2Fruns');
    await user.type(await screen.findByLabelText('Username'), 'newcomer');
    await user.type(screen.getByLabelText('Password'), 'a fine long passphrase');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByTestId('where')).toHaveTextContent('/runs');
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toEqual({ username: 'newcomer', password: 'a fine long passphrase' });
    expect(post.headers.get('X-CSRFToken')).toBe('t');
  });

  it("shows the server's reasons under their fields", async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/auth/me/': SIGNED_OUT,
      'GET /api/auth/config/': [200, { registration_open: true, demo_account: null }],
      'POST /api/auth/signup/': [
        400,
        {
          username: ['this username is taken'],
          password: ['This password is too short.', 'This password is too common.'],
        },
      ],
    });
    renderAt('/signup');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'pass');
    await user.type(screen.getByLabelText('Email (optional)'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByText('this username is taken')).toHaveAttribute('role', 'alert');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(
      /too short\. This password is too common\./,
    );
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      username: 'ada',
      password: 'pass',
      email: 'ada@example.com',
    });
    expect(screen.queryByTestId('where')).not.toBeInTheDocument();
  });

  it('says so when the server takes no new accounts', async () => {
    mockFetch({
      'GET /api/auth/me/': SIGNED_OUT,
      'GET /api/auth/config/': [200, { registration_open: false, demo_account: null }],
    });
    renderAt('/signup');
    expect(await screen.findByRole('heading', { name: 'Sign-up is closed' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign up' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
  });
});
