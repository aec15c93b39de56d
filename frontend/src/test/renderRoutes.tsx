import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Routes } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Render `routes` at `path` under a fresh query client (no retries) and a memory router;
 * `outside` renders in the router beside the routes (a probe of the location, say).
 * `refresh()` renders the same tree again, with the same client.
 */
export function renderRoutes(path: string, routes: ReactNode, outside?: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // A new element each time: React skips rendering the very same element again.
  const tree = () => (
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>{routes}</Routes>
        {outside}
      </MemoryRouter>
    </QueryClientProvider>
  );
  const result = render(tree());
  return { ...result, refresh: () => result.rerender(tree()) };
}

/** Each test in the file: a CSRF cookie to send, and fetch (see `mockFetch`) unstubbed after. */
export function stubApiPerTest() {
  beforeEach(() => {
    document.cookie = 'csrftoken=t; path=/';
  });
  afterEach(() => vi.unstubAllGlobals());
}
