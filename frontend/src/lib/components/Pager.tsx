import { pageCount, type Page } from '../api/pagination';

/** Previous / next buttons and "page x of y · n items" under a list, from the API's links. */
export function Pager({
  page,
  data,
  onPage,
  label,
}: {
  page: number;
  data: Page<unknown> | undefined;
  onPage: (page: number) => void;
  /** What the list holds, for the accessible name ("Programs pages"). */
  label: string;
}) {
  if (!data) return null;
  const pages = pageCount(page, data);
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button
        type="button"
        className="btn btn-small"
        disabled={!data.previous}
        onClick={() => onPage(page - 1)}
      >
        Previous
      </button>
      <span className="note" data-testid="pager-status">
        Page {page} of {pages} · {data.count} {data.count === 1 ? 'item' : 'items'}
      </span>
      <button
        type="button"
        className="btn btn-small"
        disabled={!data.next}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
