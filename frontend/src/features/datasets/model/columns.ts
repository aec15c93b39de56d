/** The column names of an uploaded file, read from its start in the browser. */
export function fileColumns(name: string, head: string): string[] {
  const lower = name.toLowerCase();
  if (lower.endsWith('.jsonl')) {
    const first = head.split(/\r?\n/).find((line) => line.trim());
    return first ? keysOf(safeParse(first)) : [];
  }
  if (lower.endsWith('.json')) {
    // Only the first object matters; a truncated head is parsed up to its first "}".
    const start = head.indexOf('{');
    const end = head.indexOf('}', start);
    return start >= 0 && end > start ? keysOf(safeParse(head.slice(start, end + 1))) : [];
  }
  const firstLine = head.replace(/^\uFEFF/, '').split(/\r?\n/)[0] ?? '';
  return parseCsvLine(firstLine).filter(Boolean);
}

/** One CSV line (RFC 4180 quoting; no embedded line breaks in a header). */
export function parseCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function keysOf(value: unknown): string[] {
  return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
}

/** The property names of a JSON schema (a DataModel's fields). */
export function schemaFields(schema: unknown): string[] {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties) : [];
}

/**
 * Field -> column, defaulting each field to the column of the same name (then a
 * case-insensitive match). Only entries that differ from the field name need sending,
 * but sending all is harmless.
 */
export function defaultMapping(fields: string[], columns: string[]): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const field of fields) {
    const match =
      columns.find((c) => c === field) ??
      columns.find((c) => c.toLowerCase() === field.toLowerCase());
    if (match) mapping[field] = match;
  }
  return mapping;
}
