import createClient from 'openapi-fetch';
import type { paths } from './schema';

/**
 * The one HTTP client: typed by the generated OpenAPI paths, same-origin (the dev server
 * proxies /api to Django; in production Django serves this bundle), cookies for the session.
 */
export const api = createClient<paths>({ baseUrl: '/', credentials: 'same-origin' });
