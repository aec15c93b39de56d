import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { ApiError, flattenErrors } from '../errors';
import { fetchMe } from './authMe';
import { login } from './authLogin';
import { useRuns } from './runsList';
import { usePrograms } from './programsList';

function wrapper({ children }: { children: ReactNode }) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

beforeEach(() => {
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
});
afterEach(() => vi.unstubAllGlobals());

const run = { id: 3, name: 'r', state: 'running', fit_config: { epochs: 2 } };

describe('API operations (mocked fetch)', () => {
  it('reads a 403 on /api/auth/me/ as "nobody signed in"', async () => {
    mockFetch({
      'GET /api/auth/me/': [403, { detail: 'Authentication credentials were not provided.' }],
    });
    await expect(fetchMe()).resolves.toBeNull();
  });

  it('fetches the CSRF cookie before the first unsafe request and sends it back', async () => {
    const calls = mockFetch({
      'GET /api/auth/csrf/': [200, { csrf_token: 'tok123' }],
      'POST /api/auth/login/': [200, { id: 1, username: 'demo' }],
    });
    await expect(login({ username: 'demo', password: 'pw' })).resolves.toMatchObject({
      username: 'demo',
    });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /api/auth/csrf/',
      'POST /api/auth/login/',
    ]);
    expect(calls[1]!.headers.get('X-CSRFToken')).toBe('tok123');
    expect(calls[1]!.body).toEqual({ username: 'demo', password: 'pw' });
  });

  it('uses the cookie when Django already set it', async () => {
    document.cookie = 'csrftoken=fromcookie; path=/';
    const calls = mockFetch({ 'POST /api/auth/login/': [200, { id: 1, username: 'demo' }] });
    await login({ username: 'demo', password: 'pw' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.get('X-CSRFToken')).toBe('fromcookie');
  });

  it('turns a refusal into an ApiError with the server message', async () => {
    mockFetch({
      'GET /api/auth/csrf/': [200, { csrf_token: 't' }],
      'POST /api/auth/login/': [403, { detail: 'wrong username or password' }],
    });
    const error = await login({ username: 'x', password: 'y' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(403);
    expect((error as ApiError).message).toBe('wrong username or password');
  });

  it('useRuns lists the first page of runs', async () => {
    const calls = mockFetch({ 'GET /api/runs/?page=1': [200, { count: 1, results: [run] }] });
    const { result } = renderHook(() => useRuns(), { wrapper });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(result.current.data).toEqual([run]);
    expect(calls[0]!.url).toBe('/api/runs/?page=1');
  });

  it('usePrograms surfaces a server error', async () => {
    mockFetch({ 'GET /api/programs/?page=1': [500, { detail: 'boom' }] });
    const { result } = renderHook(() => usePrograms(), { wrapper });
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(result.current.error?.message).toBe('boom');
  });
});

describe('flattenErrors', () => {
  it('reads document errors, nested DRF errors and detail', () => {
    expect(
      flattenErrors({ errors: [{ path: 'program.modules[0].name', message: 'empty' }] }),
    ).toEqual([{ path: 'program.modules[0].name', message: 'empty' }]);
    expect(
      flattenErrors({
        'compile_config.optimizer.params': ['`seed` bad'],
        fit_config: { epochs: ['too big'] },
      }),
    ).toEqual([
      { path: 'compile_config.optimizer.params', message: '`seed` bad' },
      { path: 'fit_config.epochs', message: 'too big' },
    ]);
    expect(flattenErrors({ detail: 'nope' })).toEqual([{ path: '', message: 'nope' }]);
  });
});
