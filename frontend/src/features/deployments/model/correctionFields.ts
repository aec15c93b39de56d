/**
 * The correction editor's per-field form: an output schema of plain fields (text,
 * numbers, yes/no) gets one control per field; any other schema is edited as JSON.
 */

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean';
export type CorrectionField = { name: string; kind: FieldKind; required: boolean };
/** The form's values: text for text and numbers, a flag for yes/no. */
export type FieldValues = Record<string, string | boolean>;

const KINDS = new Set<string>(['string', 'number', 'integer', 'boolean']);

/** The schema's fields when every one is plain, else null (edit as JSON). */
export function plainFields(schema: unknown): CorrectionField[] | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const { properties, required } = schema as { properties?: unknown; required?: unknown };
  if (typeof properties !== 'object' || properties === null) return null;
  const needed = new Set(Array.isArray(required) ? (required as string[]) : []);
  const fields: CorrectionField[] = [];
  for (const [name, spec] of Object.entries(properties as Record<string, unknown>)) {
    const kind = (spec as { type?: unknown } | null)?.type;
    if (typeof kind !== 'string' || !KINDS.has(kind)) return null;
    fields.push({ name, kind: kind as FieldKind, required: needed.has(name) });
  }
  return fields.length ? fields : null;
}

/** An output object as the form's values (missing fields empty). */
export function toValues(fields: CorrectionField[], output: unknown): FieldValues {
  const source = (typeof output === 'object' && output !== null ? output : {}) as Record<
    string,
    unknown
  >;
  return Object.fromEntries(
    fields.map((f) => {
      const value = source[f.name];
      if (f.kind === 'boolean') return [f.name, value === true];
      return [f.name, value === undefined || value === null ? '' : String(value)];
    }),
  );
}

/** The form's values as the output object, or the first field that does not read. */
export function fromValues(
  fields: CorrectionField[],
  values: FieldValues,
): { value: Record<string, unknown> } | { field: string; error: string } {
  const value: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = values[f.name];
    if (f.kind === 'boolean') {
      value[f.name] = raw === true;
      continue;
    }
    const text = typeof raw === 'string' ? raw : '';
    if (f.kind === 'string') {
      if (text !== '' || f.required) value[f.name] = text;
      continue;
    }
    if (text.trim() === '') {
      if (f.required) return { field: f.name, error: 'a number is needed' };
      continue;
    }
    const number = Number(text);
    if (!Number.isFinite(number) || (f.kind === 'integer' && !Number.isInteger(number)))
      return { field: f.name, error: f.kind === 'integer' ? 'a whole number' : 'a number' };
    value[f.name] = number;
  }
  return { value };
}
