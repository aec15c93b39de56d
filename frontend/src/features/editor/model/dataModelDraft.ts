/**
 * The data model designer's editing session: the model being edited, as a field table
 * and as the JSON schema text the user may type instead, and what saving it writes to
 * the library. Pure functions; the designer's components hold the state.
 */
import {
  fromJsonSchema,
  toJsonSchema,
  validateDataModel,
  type DataModelDef,
  type FieldDef,
} from '@/lib/datamodel/schema';
import type { Json } from '@/lib/json';
import { editorClassPath, type SavedDataModel } from './document';

export type DraftState = {
  /** The library model being edited; null while drafting a new one. */
  current: string | null;
  draft: DataModelDef;
  /** The schema as typed; null shows the schema generated from `draft`. */
  rawSchema: string | null;
  schemaError: string | null;
  /** Why the field table cannot show the model (then only its schema text is editable). */
  unsupported: string | null;
  /** Models a pasted schema brought along in `$defs` that the library does not have yet. */
  extraDefs: DataModelDef[];
};

type Parsed = { def: DataModelDef; nested: DataModelDef[] } | { error: string };

export function parseSaved(model: SavedDataModel): Parsed {
  try {
    const { model: def, nested } = fromJsonSchema(model.schema, model.name);
    return { def: { ...def, name: model.name }, nested };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const NEW_MODEL: DataModelDef = {
  name: 'NewModel',
  fields: [{ name: 'text', type: { kind: 'string' }, description: '', required: true }],
};

export function uniqueModelName(library: SavedDataModel[]): string {
  const taken = new Set(library.map((m) => m.name));
  let name = 'NewModel';
  for (let i = 2; taken.has(name); i += 1) name = `NewModel${i}`;
  return name;
}

/** Start editing the library model `name`, or a new model when there is none of that name. */
export function openModel(library: SavedDataModel[], name: string | null): DraftState {
  const fresh = { rawSchema: null, schemaError: null, unsupported: null, extraDefs: [] };
  const model = library.find((m) => m.name === name);
  if (!model)
    return { ...fresh, current: null, draft: { ...NEW_MODEL, name: uniqueModelName(library) } };
  const parsed = parseSaved(model);
  if ('def' in parsed) return { ...fresh, current: model.name, draft: parsed.def };
  return {
    ...fresh,
    current: model.name,
    draft: { name: model.name, fields: [] },
    unsupported: parsed.error,
    rawSchema: JSON.stringify(model.schema, null, 2),
  };
}

/** The library's models the field table can show, by name. */
export function libraryDefs(library: SavedDataModel[]): Map<string, DataModelDef> {
  const map = new Map<string, DataModelDef>();
  for (const model of library) {
    const parsed = parseSaved(model);
    if ('def' in parsed) map.set(model.name, parsed.def);
  }
  return map;
}

export type DraftCheck = {
  /** Resolves the models fields name: the draft, the library, the pasted `$defs`. */
  lookup: (name: string) => DataModelDef | undefined;
  errors: string[];
  /** The schema pydantic would emit for the draft; empty while it has errors. */
  generated: string;
};

export function checkDraft(state: DraftState, defs: Map<string, DataModelDef>): DraftCheck {
  const { draft, unsupported, extraDefs } = state;
  const lookup = (name: string) =>
    name === draft.name ? draft : (defs.get(name) ?? extraDefs.find((d) => d.name === name));
  const errors = unsupported ? [] : validateDataModel(draft, lookup);
  let generated = '';
  if (!unsupported && errors.length === 0) {
    try {
      generated = JSON.stringify(toJsonSchema(draft, lookup), null, 2);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return { lookup, errors, generated };
}

/** An edit in the table: the schema text follows the table again. */
export function editDraft(state: DraftState, draft: DataModelDef): DraftState {
  return { ...state, draft, rawSchema: null };
}

/** An edit of the schema text: the table follows it while it reads as a model. */
export function editSchemaText(
  state: DraftState,
  text: string,
  defs: Map<string, DataModelDef>,
): DraftState {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (error) {
    return { ...state, rawSchema: text, schemaError: `Not JSON: ${(error as Error).message}` };
  }
  try {
    const { model, nested } = fromJsonSchema(value, state.draft.name);
    return {
      ...state,
      rawSchema: text,
      draft: model,
      extraDefs: nested.filter((n) => !defs.has(n.name)),
      schemaError: null,
      unsupported: null,
    };
  } catch (error) {
    return { ...state, rawSchema: text, schemaError: (error as Error).message };
  }
}

export type SavePlan =
  | { error: string }
  | {
      /** Models a pasted schema brought in its `$defs`: they join the library first. */
      nested: SavedDataModel[];
      model: SavedDataModel;
      previousName: string | undefined;
    };

/** What saving the draft writes to the library, or why it cannot be saved. */
export function planSave(
  state: DraftState,
  library: SavedDataModel[],
  check: DraftCheck,
): SavePlan {
  const { draft, unsupported, rawSchema, schemaError, extraDefs, current } = state;
  let schema: Json;
  let nested: DataModelDef[] = [];
  if (unsupported && rawSchema !== null) {
    try {
      schema = JSON.parse(rawSchema) as Json;
    } catch (error) {
      return { error: `Not JSON: ${(error as Error).message}` };
    }
  } else {
    if (check.errors.length > 0 || schemaError) return { error: 'Fix the problems listed first.' };
    schema = toJsonSchema(draft, check.lookup);
    nested = extraDefs;
  }
  const previous = library.find((m) => m.name === current);
  return {
    nested: nested.map((def) => ({
      name: def.name,
      class: editorClassPath(def.name),
      schema: toJsonSchema(def, check.lookup),
    })),
    model: {
      name: draft.name,
      class: previous?.class ?? editorClassPath(draft.name),
      schema: schema as SavedDataModel['schema'],
    },
    previousName: previous ? previous.name : undefined,
  };
}

export function replaceField(def: DataModelDef, index: number, field: FieldDef): DataModelDef {
  return { ...def, fields: def.fields.map((f, i) => (i === index ? field : f)) };
}

export function moveField(def: DataModelDef, index: number, by: number): DataModelDef {
  const fields = [...def.fields];
  const [moved] = fields.splice(index, 1);
  fields.splice(index + by, 0, moved as FieldDef);
  return { ...def, fields };
}

export function removeField(def: DataModelDef, index: number): DataModelDef {
  return { ...def, fields: def.fields.filter((_, i) => i !== index) };
}

/** A required string field named `field` (or `field_1`, ... when taken). */
export function addField(def: DataModelDef): DataModelDef {
  const taken = new Set(def.fields.map((f) => f.name));
  let name = 'field';
  for (let i = 1; taken.has(name); i += 1) name = `field_${i}`;
  return { ...def, fields: [...def.fields, { name, type: { kind: 'string' }, required: true }] };
}

/** A field's default as typed: JSON, or empty for none. */
export function parseDefault(text: string): { value: Json | undefined } | { error: string } {
  if (!text.trim()) return { value: undefined };
  try {
    return { value: JSON.parse(text) as Json };
  } catch {
    return { error: 'Not a JSON value (strings need quotes).' };
  }
}

export function withDefault(field: FieldDef, value: Json | undefined): FieldDef {
  const next = { ...field, default: value };
  if (value === undefined) delete next.default;
  return next;
}

/** Whether the typed default means `value` (so a re-render need not replace the text). */
export function sameJsonText(text: string, value: Json | undefined): boolean {
  if (!text.trim()) return value === undefined;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
