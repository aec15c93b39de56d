/**
 * DataModels as the designer edits them, and the JSON schema pydantic emits for them.
 *
 * optimizer_core's `DataModel` is a pydantic model with `extra="forbid"`; programs store
 * `model_json_schema()`. The designer produces exactly that schema (same keys, same key
 * order) so a model drawn here and the same class written in Python are interchangeable.
 */
import { isJsonObject, type Json, type JsonObject } from '../json';

export type FieldType =
  | { kind: 'string' }
  | { kind: 'integer' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'list'; items: FieldType }
  | { kind: 'model'; model: string };

export type FieldKind = FieldType['kind'];

export interface FieldDef {
  name: string;
  type: FieldType;
  description?: string;
  /** A required field has no default. An optional one without a default becomes `T | None = None`. */
  required: boolean;
  /** The default value of an optional field; `undefined` means none. */
  default?: Json;
}

export interface DataModelDef {
  name: string;
  description?: string;
  fields: FieldDef[];
}

export type JsonSchema = JsonObject;

export class SchemaError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'SchemaError';
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Python's `str.title()`: upper-case a letter that follows a non-letter, lower-case the rest. */
export function pythonTitle(text: string): string {
  let out = '';
  let previousCased = false;
  for (const ch of text) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (previousCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    previousCased = cased;
  }
  return out;
}

/** The title pydantic gives a field: `name.title().replace("_", " ")`. */
export function fieldTitle(name: string): string {
  return pythonTitle(name).replaceAll('_', ' ');
}

/** Keys sorted the way pydantic sorts a schema, except inside `properties` and `default`. */
function sortSchema(value: Json, parentKey?: string): Json {
  if (Array.isArray(value)) return value.map((item) => sortSchema(item));
  if (!isJsonObject(value)) return value;
  const keys = Object.keys(value);
  const ordered = parentKey === 'properties' ? keys : [...keys].sort();
  const out: JsonObject = {};
  for (const key of ordered) {
    const child = value[key] as Json;
    out[key] = key === 'default' || key === 'enum' ? child : sortSchema(child, key);
  }
  return out;
}

function typeSchema(type: FieldType): JsonObject {
  switch (type.kind) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: type.kind };
    case 'enum':
      return type.values.length === 1
        ? { const: type.values[0] as string, type: 'string' }
        : { enum: [...type.values], type: 'string' };
    case 'list':
      return { items: typeSchema(type.items), type: 'array' };
    case 'model':
      return { $ref: `#/$defs/${type.model}` };
  }
}

function fieldSchema(field: FieldDef): JsonObject {
  const base = typeSchema(field.type);
  const isModel = field.type.kind === 'model';
  let schema: JsonObject;
  if (!field.required && field.default === undefined) {
    schema = { anyOf: [base, { type: 'null' }], default: null };
  } else {
    schema = { ...base };
    if (!field.required) schema.default = field.default as Json;
  }
  if (field.description) schema.description = field.description;
  // pydantic gives no title to a field whose type is another model.
  if (!isModel) schema.title = fieldTitle(field.name);
  return schema;
}

/** Models referenced by `def`, directly or through other models (not `def` itself). */
export function referencedModels(
  def: DataModelDef,
  lookup: (name: string) => DataModelDef | undefined,
): DataModelDef[] {
  const found = new Map<string, DataModelDef>();
  const visit = (current: DataModelDef, path: string[]) => {
    for (const field of current.fields) {
      let type = field.type;
      while (type.kind === 'list') type = type.items;
      if (type.kind !== 'model') continue;
      if (type.model === def.name || path.includes(type.model)) {
        throw new SchemaError(
          `${current.name}.${field.name}`,
          `model ${type.model} contains itself (${[...path, type.model].join(' -> ')})`,
        );
      }
      if (found.has(type.model)) continue;
      const nested = lookup(type.model);
      if (!nested) {
        throw new SchemaError(`${current.name}.${field.name}`, `unknown model ${type.model}`);
      }
      found.set(type.model, nested);
      visit(nested, [...path, type.model]);
    }
  };
  visit(def, [def.name]);
  return [...found.values()];
}

function objectSchema(def: DataModelDef): JsonObject {
  const properties: JsonObject = {};
  for (const field of def.fields) properties[field.name] = fieldSchema(field);
  const schema: JsonObject = {
    additionalProperties: false,
    properties,
    title: def.name,
    type: 'object',
  };
  if (def.description) schema.description = def.description;
  const required = def.fields.filter((f) => f.required).map((f) => f.name);
  if (required.length > 0) schema.required = required;
  return schema;
}

/**
 * The JSON schema of `def`, as `DataModel.model_json_schema()` returns it.
 *
 * @param lookup resolves the models that fields of kind `model` name.
 */
export function toJsonSchema(
  def: DataModelDef,
  lookup: (name: string) => DataModelDef | undefined = () => undefined,
): JsonSchema {
  const schema = objectSchema(def);
  const nested = referencedModels(def, lookup);
  if (nested.length > 0) {
    const defs: JsonObject = {};
    for (const model of nested) defs[model.name] = objectSchema(model);
    schema.$defs = defs;
  }
  return sortSchema(schema) as JsonSchema;
}

function parseType(node: Json, path: string): FieldType {
  if (!isJsonObject(node)) throw new SchemaError(path, 'expected a schema object');
  if (typeof node.$ref === 'string') {
    const match = /^#\/\$defs\/(.+)$/.exec(node.$ref);
    if (!match) throw new SchemaError(path, `unsupported $ref ${node.$ref}`);
    return { kind: 'model', model: match[1] as string };
  }
  if ('const' in node) {
    if (typeof node.const !== 'string')
      throw new SchemaError(path, 'only string constants are supported');
    return { kind: 'enum', values: [node.const] };
  }
  if ('enum' in node) {
    const values = node.enum;
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      !values.every((v) => typeof v === 'string')
    ) {
      throw new SchemaError(path, '`enum` must be a non-empty list of strings');
    }
    return { kind: 'enum', values: values as string[] };
  }
  switch (node.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { kind: node.type };
    case 'array':
      if (node.items === undefined) throw new SchemaError(path, 'an array needs `items`');
      return { kind: 'list', items: parseType(node.items, `${path}.items`) };
    case 'object':
      throw new SchemaError(
        path,
        'inline objects are not supported; define a model and reference it',
      );
    default:
      throw new SchemaError(path, `unsupported type ${JSON.stringify(node.type ?? null)}`);
  }
}

function parseObject(node: Json, path: string, fallbackName: string): DataModelDef {
  if (!isJsonObject(node)) throw new SchemaError(path, 'expected a schema object');
  if (node.type !== undefined && node.type !== 'object') {
    throw new SchemaError(path, 'a DataModel schema must have "type": "object"');
  }
  if (!isJsonObject(node.properties)) throw new SchemaError(path, 'missing "properties" object');
  const required = node.required ?? [];
  if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
    throw new SchemaError(`${path}.required`, 'must be a list of field names');
  }
  const fields: FieldDef[] = [];
  for (const [name, prop] of Object.entries(node.properties)) {
    const fieldPath = `${path}.properties.${name}`;
    if (!isJsonObject(prop)) throw new SchemaError(fieldPath, 'expected a schema object');
    const isRequired = required.includes(name);
    let typeNode: Json = prop;
    let optionalNone = false;
    if (Array.isArray(prop.anyOf)) {
      const options = prop.anyOf.filter((o) => !(isJsonObject(o) && o.type === 'null'));
      if (options.length !== 1 || prop.anyOf.length !== 2) {
        throw new SchemaError(fieldPath, 'only `T | None` unions are supported');
      }
      typeNode = options[0] as Json;
      optionalNone = prop.default === null;
    }
    const field: FieldDef = { name, type: parseType(typeNode, fieldPath), required: isRequired };
    if (typeof prop.description === 'string') field.description = prop.description;
    if (!isRequired && !optionalNone) {
      if (!('default' in prop)) {
        throw new SchemaError(fieldPath, 'an optional field needs a default (or `T | None`)');
      }
      field.default = prop.default as Json;
    }
    fields.push(field);
  }
  for (const name of required) {
    if (!(name in node.properties))
      throw new SchemaError(`${path}.required`, `unknown field ${name}`);
  }
  const def: DataModelDef = {
    name: typeof node.title === 'string' ? node.title : fallbackName,
    fields,
  };
  if (typeof node.description === 'string') def.description = node.description;
  return def;
}

/**
 * Read a schema written by pydantic (or by `toJsonSchema`) back into designer models.
 *
 * @returns the model itself and the models its `$defs` hold.
 * @throws SchemaError naming the path of the first construct the designer cannot show.
 */
export function fromJsonSchema(
  schema: Json,
  fallbackName = 'DataModel',
): { model: DataModelDef; nested: DataModelDef[] } {
  if (!isJsonObject(schema)) throw new SchemaError('$', 'expected a JSON object');
  const nested: DataModelDef[] = [];
  if (schema.$defs !== undefined) {
    if (!isJsonObject(schema.$defs)) throw new SchemaError('$.$defs', 'expected an object');
    for (const [name, def] of Object.entries(schema.$defs)) {
      nested.push(parseObject(def, `$.$defs.${name}`, name));
    }
  }
  const model = parseObject(schema, '$', fallbackName);
  const known = new Set(nested.map((n) => n.name));
  for (const def of [model, ...nested]) {
    for (const field of def.fields) {
      let type = field.type;
      while (type.kind === 'list') type = type.items;
      if (type.kind === 'model' && !known.has(type.model)) {
        throw new SchemaError(`${def.name}.${field.name}`, `$ref to unknown model ${type.model}`);
      }
    }
  }
  return { model, nested };
}

function matchesType(value: Json, type: FieldType): boolean {
  switch (type.kind) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && type.values.includes(value);
    case 'list':
      return Array.isArray(value) && value.every((item) => matchesType(item, type.items));
    case 'model':
      return isJsonObject(value);
  }
}

/** Problems that would make pydantic (or the engine) refuse the model, one message each. */
export function validateDataModel(
  def: DataModelDef,
  lookup: (name: string) => DataModelDef | undefined,
): string[] {
  const errors: string[] = [];
  if (!IDENTIFIER.test(def.name)) {
    errors.push(`Model name "${def.name}" must be a Python identifier (letters, digits, _).`);
  }
  const seen = new Set<string>();
  for (const field of def.fields) {
    const label = field.name || '(unnamed field)';
    if (!IDENTIFIER.test(field.name)) {
      errors.push(`Field "${label}": the name must be a Python identifier.`);
    } else if (field.name.startsWith('_')) {
      errors.push(`Field "${label}": pydantic ignores names starting with "_".`);
    }
    if (seen.has(field.name)) errors.push(`Field "${label}" is defined twice.`);
    seen.add(field.name);
    let type = field.type;
    while (type.kind === 'list') type = type.items;
    if (type.kind === 'enum' && (type.values.length === 0 || type.values.some((v) => v === ''))) {
      errors.push(`Field "${label}": an enum needs at least one non-empty value.`);
    }
    if (type.kind === 'model' && !lookup(type.model)) {
      errors.push(`Field "${label}": unknown model "${type.model}".`);
    }
    if (field.required && field.default !== undefined) {
      errors.push(`Field "${label}": a required field cannot have a default.`);
    }
    if (!field.required && field.default !== undefined && !matchesType(field.default, field.type)) {
      errors.push(
        `Field "${label}": the default ${JSON.stringify(field.default)} is not of type ${describeType(field.type)}.`,
      );
    }
  }
  if (errors.length === 0) {
    try {
      referencedModels(def, lookup);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return errors;
}

/** A short human name for a field type: "list of string", "Source". */
export function describeType(type: FieldType): string {
  switch (type.kind) {
    case 'list':
      return `list of ${describeType(type.items)}`;
    case 'model':
      return type.model;
    case 'enum':
      return `one of ${type.values.map((v) => JSON.stringify(v)).join(' | ')}`;
    default:
      return type.kind;
  }
}

/** The top-level field names of a DataModel schema, in order. */
export function schemaKeys(schema: JsonSchema): string[] {
  return isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
}
