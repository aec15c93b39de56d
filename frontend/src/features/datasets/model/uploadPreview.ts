/**
 * The first rows of a file chosen for upload, read in the browser from its start and
 * shown through the chosen field -> column mapping, before anything is sent. The server
 * validates every row after the upload; this is a look at what it will read.
 */

/** One row as read from the file: its values by column, or why it cannot be read. */
export type FileRow =
  { line: number; values: Record<string, unknown> } | { line: number; error: string; raw: string };

/** One row through the mapping: the input and output objects, and required fields left empty. */
export type MappedRow = {
  line: number;
  input: Record<string, unknown> | null;
  output: Record<string, unknown> | null;
  missing: string[];
  error: string | null;
  raw: string | null;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * CSV records (RFC 4180: quoted cells may hold commas, quotes and line breaks), each with
 * the line it starts on. `complete`: the text is the whole file; otherwise the last record
 * may be cut off and is left out.
 */
export function csvRecords(text: string, complete: boolean): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let ended = true;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i += 1) {
    const ch = body[i]!;
    ended = false;
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line += 1;
        cell += ch;
      }
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i += 1;
      cells.push(cell);
      records.push({ line: start, cells });
      cells = [];
      cell = '';
      line += 1;
      start = line;
      ended = true;
    } else cell += ch;
  }
  if (!ended && complete && !quoted) {
    cells.push(cell);
    records.push({ line: start, cells });
  }
  return records.filter((r) => !(r.cells.length === 1 && r.cells[0]!.trim() === ''));
}

/**
 * The end (exclusive) of the JSON value starting at `start` (an object, array, string or
 * bare word), or -1 when the text ends first.
 */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth += 1;
    else if (ch === '}' || ch === ']') {
      if (depth === 0) return i; // the array's own end: a bare word ends here
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (ch === ',' || /\s/.test(ch!))) return i;
  }
  return -1;
}

function parsed(line: number, raw: string): FileRow {
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value)
      ? { line, values: value }
      : { line, error: 'not an object', raw: raw.slice(0, 200) };
  } catch (e) {
    return { line, error: `not valid JSON: ${(e as Error).message}`, raw: raw.slice(0, 200) };
  }
}

/** The items of a JSON array from the start of its text, numbered 1, 2... as the server does. */
function jsonItems(text: string, limit: number): FileRow[] {
  const rows: FileRow[] = [];
  let i = text.indexOf('[');
  if (i < 0) return rows;
  i += 1;
  while (rows.length < limit) {
    while (i < text.length && /[\s,]/.test(text[i]!)) i += 1;
    if (i >= text.length || text[i] === ']') break;
    const end = valueEnd(text, i);
    if (end < 0) break; // cut off by the end of what was read
    rows.push(parsed(rows.length + 1, text.slice(i, end)));
    i = end;
  }
  return rows;
}

/**
 * The first `limit` rows of a file from its start (`head`): CSV (header, then rows), JSON
 * Lines (one object a line) or a JSON array. Line numbers are the server's: the file's line
 * for CSV and JSON Lines, the item's position for a JSON array. `complete`: `head` is the
 * whole file (else a last row that may be cut off is left out).
 */
export function readHead(name: string, head: string, complete: boolean, limit = 5): FileRow[] {
  const lower = name.toLowerCase();
  if (lower.endsWith('.json')) return jsonItems(head, limit);
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    const lines = head.split('\n');
    if (!complete) lines.pop();
    const rows: FileRow[] = [];
    lines.forEach((text, index) => {
      if (rows.length < limit && text.trim()) rows.push(parsed(index + 1, text.trim()));
    });
    return rows;
  }
  const [header, ...records] = csvRecords(head, complete);
  if (!header) return [];
  return records.slice(0, limit).map(({ line, cells }) =>
    cells.length === header.cells.length
      ? {
          line,
          values: Object.fromEntries(header.cells.map((c, i) => [c.trim(), cells[i]])),
        }
      : {
          line,
          error: `${cells.length} values, but the header has ${header.cells.length} columns`,
          raw: cells.join(',').slice(0, 200),
        },
  );
}

type FieldSchema = { type?: unknown; anyOf?: unknown };

/** The JSON type a schema property expects ('string', 'number', 'array'...), null if any. */
export function fieldType(schema: unknown, field: string): string | null {
  const property = (schema as { properties?: Record<string, FieldSchema> } | null)?.properties?.[
    field
  ];
  if (!property) return null;
  if (typeof property.type === 'string') return property.type;
  if (Array.isArray(property.anyOf))
    for (const option of property.anyOf as FieldSchema[])
      if (typeof option?.type === 'string' && option.type !== 'null') return option.type;
  return null;
}

/** A CSV cell as the server reads it for a field of `type` (JSON cells, numbers, booleans). */
function cellValue(cell: string, type: string | null): unknown {
  if (type === 'array' || type === 'object') {
    try {
      return JSON.parse(cell);
    } catch {
      return cell;
    }
  }
  if ((type === 'number' || type === 'integer') && cell.trim() !== '' && !isNaN(Number(cell)))
    return Number(cell);
  if (type === 'boolean' && /^(true|false)$/i.test(cell.trim()))
    return cell.trim().toLowerCase() === 'true';
  return cell;
}

/**
 * Each row through the mapping: every input and output field takes the value of its column
 * (`mapping[field]`, else the column of its own name); a required field without a value (an
 * absent one, or an empty CSV cell) is listed in `missing`.
 */
export function mapRows(
  rows: FileRow[],
  {
    inputSchema,
    outputSchema,
    mapping,
    csv,
  }: {
    inputSchema: unknown;
    outputSchema: unknown;
    mapping: Record<string, string>;
    csv: boolean;
  },
): MappedRow[] {
  const fieldsOf = (schema: unknown) =>
    Object.keys((schema as { properties?: object } | null)?.properties ?? {});
  const requiredOf = (schema: unknown) => {
    const required = (schema as { required?: unknown } | null)?.required;
    return new Set(Array.isArray(required) ? required.map(String) : []);
  };
  return rows.map((row) => {
    if ('error' in row)
      return {
        line: row.line,
        input: null,
        output: null,
        missing: [],
        error: row.error,
        raw: row.raw,
      };
    const missing: string[] = [];
    const side = (schema: unknown) => {
      const values: Record<string, unknown> = {};
      const required = requiredOf(schema);
      for (const field of fieldsOf(schema)) {
        const value = row.values[mapping[field] ?? field];
        if (value === undefined || (csv && value === '')) {
          if (required.has(field)) missing.push(field);
          continue;
        }
        values[field] =
          csv && typeof value === 'string' ? cellValue(value, fieldType(schema, field)) : value;
      }
      return values;
    };
    const input = side(inputSchema);
    const output = side(outputSchema);
    return { line: row.line, input, output, missing, error: null, raw: null };
  });
}
