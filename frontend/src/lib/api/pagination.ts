import { useSearchParams } from 'react-router';

/** A page of a list endpoint (DRF's PageNumberPagination). */
export type Page<T> = {
  count: number;
  next?: string | null;
  previous?: string | null;
  results: T[];
};

/**
 * How many pages the list has, seen from page `page`. A page with a `next` link is full,
 * so its length is the page size; the last page (no `next`) is the count itself.
 */
export function pageCount(page: number, data: Page<unknown> | undefined): number {
  if (!data) return page;
  if (!data.next) return Math.max(page, 1);
  const size = data.results.length;
  return size > 0 ? Math.max(page + 1, Math.ceil(data.count / size)) : page + 1;
}

/** The current page number of a list page, kept in the URL (`?page=2`). */
export function usePageParam(): [number, (page: number) => void] {
  const [params, setParams] = useSearchParams();
  const raw = Number(params.get('page') ?? '1');
  const page = Number.isInteger(raw) && raw > 0 ? raw : 1;
  const setPage = (next: number) =>
    setParams(
      (current) => {
        const copy = new URLSearchParams(current);
        if (next <= 1) copy.delete('page');
        else copy.set('page', String(next));
        return copy;
      },
      { replace: false },
    );
  return [page, setPage];
}
