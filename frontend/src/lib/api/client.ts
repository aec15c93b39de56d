import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The value of Django's `csrftoken` cookie, or null before /api/auth/csrf/ set it. */
export function csrfCookie(cookies: string = globalThis.document?.cookie ?? ''): string | null {
  for (const part of cookies.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === 'csrftoken') return decodeURIComponent(rest.join('='));
  }
  return null;
}

let csrfPending: Promise<string | null> | null = null;

/** Make sure the CSRF cookie exists (Django sets it on GET /api/auth/csrf/); returns its value. */
export async function ensureCsrf(): Promise<string | null> {
  const existing = csrfCookie();
  if (existing) return existing;
  csrfPending ??= fetch(new URL('/api/auth/csrf/', globalThis.location.origin), {
    credentials: 'same-origin',
  })
    .then(async (response) => {
      const body = (await response.json().catch(() => ({}))) as { csrf_token?: string };
      return csrfCookie() ?? body.csrf_token ?? null;
    })
    .finally(() => {
      csrfPending = null;
    });
  return csrfPending;
}

/** Session auth: unsafe methods carry the CSRF token Django checks (`X-CSRFToken`). */
export const csrfMiddleware: Middleware = {
  async onRequest({ request }) {
    if (!UNSAFE.has(request.method.toUpperCase())) return undefined;
    const token = await ensureCsrf();
    if (token) request.headers.set('X-CSRFToken', token);
    return request;
  },
};

/**
 * The one HTTP client: typed by the generated OpenAPI paths, same-origin (the dev server
 * proxies /api to Django; in production Django serves this bundle), cookies for the session.
 * `fetch` is looked up on each call so tests can stub the global.
 */
export const api = createClient<paths>({
  baseUrl: globalThis.location?.origin ?? 'http://localhost',
  credentials: 'same-origin',
  fetch: (request: Request) => globalThis.fetch(request),
});
api.use(csrfMiddleware);
