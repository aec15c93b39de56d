/**
 * Placeholder for the types openapi-typescript generates from the backend's OpenAPI schema.
 *
 * Once the API serves /api/schema/ (drf-spectacular, issue #5), `npm run api:generate`
 * overwrites this file. Until then no operation is typed, so nothing can call the API.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface paths {}
export type webhooks = Record<string, never>;
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface components {}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
