import { vi } from 'vitest';

export type Call = { method: string; url: string; headers: Headers; body: unknown };

/**
 * Stub the global fetch with a route table: `"GET /api/auth/me/": [200, {...}]`.
 * Records each request (method, path + query, headers, decoded body).
 */
export function mockFetch(routes: Record<string, [number, unknown]>) {
  const calls: Call[] = [];
  const fetchStub = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(request.url);
    const path = `${url.pathname}${url.search}`;
    const type = request.headers.get('content-type') ?? '';
    let body: unknown = null;
    if (type.includes('application/json')) body = await request.json();
    else if (type.includes('multipart/form-data')) body = await request.formData();
    calls.push({ method: request.method, url: path, headers: request.headers, body });
    const route =
      routes[`${request.method} ${path}`] ?? routes[`${request.method} ${url.pathname}`];
    if (!route) return new Response(JSON.stringify({ detail: 'not mocked' }), { status: 599 });
    const [status, payload] = route;
    return new Response(payload === undefined ? null : JSON.stringify(payload), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchStub);
  return calls;
}
