/** JSON values as they travel between the browser, the API and optimizer_core. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export type JsonObject = { [key: string]: Json };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value (structuredClone keeps key order). */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** Deep equality of two JSON values; key order is ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => key in b && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}

/**
 * `json.dumps` with Python's default separators and `ensure_ascii=True`, for strings the
 * engine builds itself (such as a Generator's default instructions).
 */
export function pythonJsonDumps(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (isJsonObject(value)) {
    const parts = Object.entries(value).map(
      ([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`,
    );
    return `{${parts.join(', ')}}`;
  }
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  return JSON.stringify(value);
}
