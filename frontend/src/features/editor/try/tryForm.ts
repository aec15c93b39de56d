/**
 * The "Try it" form: one control per field of an Input module's DataModel, read from the
 * JSON schema pydantic emits (`model_json_schema()`), and the input JSON built back from it.
 */
import { isJsonObject, type Json, type JsonObject } from '@/lib/json';
import type { JsonSchema } from '@/lib/datamodel/schema';
import type { TraceEntry } from '@/lib/api/types';

export type ControlKind = 'text' | 'integer' | 'number' | 'checkbox' | 'json';

export type TryField = {
  name: string;
  title: string;
  control: ControlKind;
  required: boolean;
  description?: string;
  /** The schema's default, shown as the initial value. */
  default?: Json;
};

/** What the user has typed: strings for text, number and JSON controls, booleans for checkboxes. */
export type TryValues = Record<string, string | boolean>;

/** The field's schema without the `null` branch of an optional (`T | None`). */
function nonNull(schema: JsonObject): JsonObject {
  const anyOf = schema.anyOf;
  if (Array.isArray(anyOf)) {
    const rest = anyOf.filter((s) => !(isJsonObject(s) && s.type === 'null'));
    if (rest.length === 1 && isJsonObject(rest[0])) return rest[0];
  }
  return schema;
}

function controlOf(schema: JsonObject): ControlKind {
  const type = nonNull(schema).type;
  if (type === 'string' && nonNull(schema).enum === undefined) return 'text';
  if (type === 'integer') return 'integer';
  if (type === 'number') return 'number';
  if (type === 'boolean') return 'checkbox';
  return 'json';
}

/** One control per property, in the schema's order. */
export function tryFields(schema: JsonSchema): TryField[] {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([name, value]) => {
    const property = isJsonObject(value) ? value : {};
    const field: TryField = {
      name,
      title: typeof property.title === 'string' ? property.title : name,
      control: controlOf(property),
      required: required.has(name),
    };
    if (typeof property.description === 'string') field.description = property.description;
    if ('default' in property) field.default = property.default as Json;
    return field;
  });
}

/** The form's starting values: the defaults, else empty (unchecked). */
export function initialValues(fields: TryField[]): TryValues {
  const values: TryValues = {};
  for (const field of fields) {
    const d = field.default;
    if (field.control === 'checkbox') values[field.name] = d === true;
    else if (field.control === 'json')
      values[field.name] = d === undefined ? '' : JSON.stringify(d);
    else values[field.name] = d === undefined || d === null ? '' : String(d);
  }
  return values;
}

export type BuildResult =
  { ok: true; value: JsonObject } | { ok: false; errors: Record<string, string> };

/**
 * The input object for the API. An empty optional field is left out (its default applies);
 * an empty required one, a number that does not parse or JSON that does not parse is an error.
 */
export function buildInput(fields: TryField[], values: TryValues): BuildResult {
  const value: JsonObject = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const raw = values[field.name];
    if (field.control === 'checkbox') {
      value[field.name] = raw === true;
      continue;
    }
    const text = typeof raw === 'string' ? raw : '';
    if (text.trim() === '' && field.control !== 'text') {
      if (field.required) errors[field.name] = 'required';
      continue;
    }
    if (text === '' && field.control === 'text') {
      if (field.required) errors[field.name] = 'required';
      continue;
    }
    if (field.control === 'text') value[field.name] = text;
    else if (field.control === 'integer' || field.control === 'number') {
      const number = Number(text);
      if (!Number.isFinite(number)) errors[field.name] = 'not a number';
      else if (field.control === 'integer' && !Number.isInteger(number))
        errors[field.name] = 'not a whole number';
      else value[field.name] = number;
    } else {
      try {
        value[field.name] = JSON.parse(text) as Json;
      } catch {
        errors[field.name] = 'not valid JSON';
      }
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

/** Trace entries in the order the document lists the modules (parents before children). */
export function traceInGraphOrder(trace: TraceEntry[], moduleOrder: string[]): TraceEntry[] {
  const rank = new Map(moduleOrder.map((name, i) => [name, i]));
  return trace
    .map((entry, i) => ({ entry, i }))
    .sort(
      (a, b) =>
        (rank.get(a.entry.module) ?? moduleOrder.length) -
          (rank.get(b.entry.module) ?? moduleOrder.length) || a.i - b.i,
    )
    .map(({ entry }) => entry);
}
