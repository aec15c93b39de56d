import { render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { App } from './App';

const ME = {
  id: 1,
  username: 'ada',
  email: null,
  first_name: '',
  last_name: '',
  is_staff: false,
};

beforeEach(() => {
  window.history.replaceState(null, '', '/');
});
afterEach(() => vi.unstubAllGlobals());

describe('App shell', () => {
  it('shows no navigation to a signed-out visitor, only the sign-in page', async () => {
    mockFetch({
      'GET /api/auth/me/': [403, { detail: 'Authentication credentials were not provided.' }],
      'GET /api/auth/config/': [200, { registration_open: true, demo_account: null }],
    });
    render(<App />);
    expect(await screen.findByRole('form', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Runs' })).not.toBeInTheDocument();
  });

  it('shows the sections once signed in, and the admin link to staff only', async () => {
    mockFetch({
      'GET /api/auth/me/': [200, ME],
      'GET /api/programs/': [200, { count: 0, next: null, previous: null, results: [] }],
    });
    const { unmount } = render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(nav).toHaveTextContent('Runs');
    expect(screen.queryByRole('link', { name: 'Admin' })).not.toBeInTheDocument();
    unmount();

    vi.unstubAllGlobals();
    mockFetch({
      'GET /api/auth/me/': [200, { ...ME, is_staff: true }],
      'GET /api/programs/': [200, { count: 0, next: null, previous: null, results: [] }],
    });
    render(<App />);
    expect(await screen.findByRole('link', { name: 'Admin' })).toHaveAttribute('href', '/admin/');
  });
});
