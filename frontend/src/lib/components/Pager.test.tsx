import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { useProgramsPage } from '../api/ops/programsList';
import { pageCount, usePageParam } from '../api/pagination';
import { Pager } from './Pager';

describe('pageCount', () => {
  it('reads the page size off a full page, and stops at the last one', () => {
    const full = { count: 120, next: '/api/runs/?page=2', previous: null, results: Array(50) };
    expect(pageCount(1, full)).toBe(3);
    expect(pageCount(3, { count: 120, next: null, previous: 'x', results: Array(20) })).toBe(3);
    expect(pageCount(1, { count: 0, next: null, previous: null, results: [] })).toBe(1);
    expect(pageCount(2, undefined)).toBe(2);
  });
});

function Where() {
  return <output aria-label="search">{useLocation().search}</output>;
}

function ProgramsList() {
  const [page, setPage] = usePageParam();
  const programs = useProgramsPage(page);
  return (
    <>
      <ul aria-label="Programs">
        {programs.data?.results.map((p) => (
          <li key={p.id}>{p.name}</li>
        ))}
      </ul>
      <Pager page={page} data={programs.data} onPage={setPage} label="Programs" />
    </>
  );
}

beforeEach(() => {
  document.cookie = 'csrftoken=t; path=/';
});
afterEach(() => vi.unstubAllGlobals());

describe('Pager', () => {
  it('follows next and previous through the API pages, keeping the page in the URL', async () => {
    const user = userEvent.setup();
    const program = (id: number) => ({ id, name: `program ${id}` });
    const calls = mockFetch({
      'GET /api/programs/?page=1': [
        200,
        { count: 3, next: '/api/programs/?page=2', previous: null, results: [1, 2].map(program) },
      ],
      'GET /api/programs/?page=2': [
        200,
        { count: 3, next: null, previous: '/api/programs/?page=1', results: [program(3)] },
      ],
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={['/programs']}>
          <Routes>
            <Route path="/programs" element={<ProgramsList />} />
          </Routes>
          <Where />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    expect(await screen.findByTestId('pager-status')).toHaveTextContent('Page 1 of 2 · 3 items');
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByText('program 3')).toBeInTheDocument());
    expect(screen.getByTestId('pager-status')).toHaveTextContent('Page 2 of 2');
    expect(screen.getByLabelText('search')).toHaveTextContent('?page=2');
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Previous' }));
    await waitFor(() => expect(screen.getByText('program 1')).toBeInTheDocument());
    expect(screen.getByLabelText('search')).toHaveTextContent('');
    expect(calls.map((c) => c.url).slice(0, 2)).toEqual([
      '/api/programs/?page=1',
      '/api/programs/?page=2',
    ]);
  });
});
