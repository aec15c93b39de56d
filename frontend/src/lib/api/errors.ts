/** One problem the server reported, with the dotted path of the field it is about. */
export type FieldProblem = { path: string; message: string };

/** A non-2xx answer of the API, with its decoded body. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(describeError(status, body));
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }

  /** Every problem in the body, flattened (DRF field errors, `{errors: [...]}`, `detail`). */
  get problems(): FieldProblem[] {
    return flattenErrors(this.body);
  }
}

/**
 * Flatten the error bodies the API sends into `{path, message}` rows:
 * `{"errors": [{path, message}]}` (program documents), DRF's `{"field": ["msg"]}` (nested
 * objects give dotted paths) and `{"detail": "msg"}`.
 */
export function flattenErrors(body: unknown, prefix = ''): FieldProblem[] {
  if (body === null || body === undefined) return [];
  if (typeof body === 'string') return [{ path: prefix, message: body }];
  if (Array.isArray(body)) {
    if (body.every((item) => typeof item === 'string'))
      return body.map((message) => ({ path: prefix, message: message as string }));
    return body.flatMap((item, index) =>
      isProblem(item)
        ? [{ path: item.path, message: item.message }]
        : flattenErrors(item, `${prefix}[${index}]`),
    );
  }
  if (typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (Array.isArray(record.errors) && record.errors.every(isProblem))
      return (record.errors as FieldProblem[]).map((e) => ({ path: e.path, message: e.message }));
    return Object.entries(record).flatMap(([key, value]) => {
      const path = key === 'detail' || key === 'non_field_errors' ? prefix : join(prefix, key);
      return flattenErrors(value, path);
    });
  }
  return [{ path: prefix, message: String(body) }];
}

function isProblem(value: unknown): value is FieldProblem {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as FieldProblem).path === 'string' &&
    typeof (value as FieldProblem).message === 'string'
  );
}

function join(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}

function describeError(status: number, body: unknown): string {
  const problems = flattenErrors(body);
  const first = problems[0];
  if (!first) return `The server answered ${status}.`;
  const text = first.path ? `${first.path}: ${first.message}` : first.message;
  return problems.length > 1 ? `${text} (and ${problems.length - 1} more)` : text;
}

/** The data of an openapi-fetch result, or an ApiError for anything else. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok || result.error !== undefined) {
    throw new ApiError(result.response.status, result.error);
  }
  return result.data as T;
}
