import { describe, expect, it } from 'vitest';
import schemas from '@/lib/datamodel/__fixtures__/schemas.json';
import type { DataModelDef } from '@/lib/datamodel/schema';
import { STARTER_MODELS } from './defaults';
import {
  addField,
  checkDraft,
  editDraft,
  editSchemaText,
  libraryDefs,
  moveField,
  openModel,
  parseDefault,
  planSave,
  removeField,
  replaceField,
  sameJsonText,
  withDefault,
} from './dataModelDraft';
import { editorClassPath, type SavedDataModel } from './document';

const library = structuredClone(STARTER_MODELS);
// A union type: the field table cannot show it.
const unsupported: SavedDataModel = {
  name: 'Either',
  class: 'app.Either',
  schema: {
    properties: { x: { anyOf: [{ type: 'string' }, { type: 'integer' }], title: 'X' } },
    required: ['x'],
    title: 'Either',
    type: 'object',
  },
};

describe('opening a model', () => {
  it('reads a library model into the table, or starts a new one with a free name', () => {
    const answer = openModel(library, 'Answer');
    expect(answer).toMatchObject({ current: 'Answer', rawSchema: null, unsupported: null });
    expect(answer.draft.fields.map((f) => f.name)).toEqual(['answer']);
    const fresh = openModel([...library, { ...library[0]!, name: 'NewModel' }], null);
    expect(fresh.current).toBeNull();
    expect(fresh.draft.name).toBe('NewModel2');
    expect(openModel(library, 'Missing').current).toBeNull();
  });

  it('shows a model the table cannot hold as its schema text only', () => {
    const state = openModel([...library, unsupported], 'Either');
    expect(state.unsupported).toMatch(/x/);
    expect(state.draft).toEqual({ name: 'Either', fields: [] });
    expect(JSON.parse(state.rawSchema!)).toEqual(unsupported.schema);
  });
});

describe('editing', () => {
  const defs = libraryDefs(library);

  it('generates the schema from the table, and lists what is wrong instead', () => {
    const state = openModel(library, 'Answer');
    expect(JSON.parse(checkDraft(state, defs).generated)).toEqual(library[1]!.schema);
    const renamed = replaceField(state.draft, 0, { ...state.draft.fields[0]!, name: 'an swer' });
    const check = checkDraft(editDraft(state, renamed), defs);
    expect(check.generated).toBe('');
    expect(check.errors[0]).toContain('Python identifier');
  });

  it('follows typed schema text, keeping the text and flagging what does not read', () => {
    const state = { ...openModel(library, null), rawSchema: null };
    const broken = editSchemaText(state, '{"type": ', defs);
    expect(broken.schemaError).toMatch(/^Not JSON:/);
    expect(broken.draft).toBe(state.draft);
    const text = JSON.stringify(schemas.Report);
    const report = editSchemaText(broken, text, defs);
    expect(report).toMatchObject({ rawSchema: text, schemaError: null, unsupported: null });
    expect(report.draft.name).toBe('Report');
    expect(report.extraDefs.map((d) => d.name)).toEqual(['Source']);
    // An edit in the table drops the typed text: the generated schema shows again.
    expect(editDraft(report, report.draft).rawSchema).toBeNull();
  });

  it('moves, removes and adds fields, naming a new one after the taken ones', () => {
    const def: DataModelDef = {
      name: 'M',
      fields: ['a', 'field', 'b'].map((name) => ({
        name,
        type: { kind: 'string' },
        required: true,
      })),
    };
    expect(moveField(def, 0, 1).fields.map((f) => f.name)).toEqual(['field', 'a', 'b']);
    expect(removeField(def, 1).fields.map((f) => f.name)).toEqual(['a', 'b']);
    expect(addField(def).fields.at(-1)).toEqual({
      name: 'field_1',
      type: { kind: 'string' },
      required: true,
    });
  });

  it('reads a default typed as JSON, empty meaning none', () => {
    const field = { name: 'n', type: { kind: 'integer' as const }, required: false, default: 1 };
    expect(parseDefault(' ')).toEqual({ value: undefined });
    expect(parseDefault('2')).toEqual({ value: 2 });
    expect(parseDefault('two')).toEqual({ error: 'Not a JSON value (strings need quotes).' });
    expect('default' in withDefault(field, undefined)).toBe(false);
    expect(withDefault(field, 3).default).toBe(3);
    expect(sameJsonText('[1,2]', [1, 2])).toBe(true);
    expect(sameJsonText('', undefined)).toBe(true);
    expect(sameJsonText('"a', 'a')).toBe(false);
  });
});

describe('planning a save', () => {
  const defs = libraryDefs(library);

  it('refuses a draft with problems', () => {
    const state = openModel(library, 'Answer');
    const bad = editDraft(state, { ...state.draft, name: '1st' });
    expect(planSave(bad, library, checkDraft(bad, defs))).toEqual({
      error: 'Fix the problems listed first.',
    });
    const typed = editSchemaText(state, '{', defs);
    expect(planSave(typed, library, checkDraft(typed, defs))).toEqual({
      error: 'Fix the problems listed first.',
    });
  });

  it('saves a renamed model under its class, replacing the old name', () => {
    const state = openModel(library, 'Answer');
    const renamed = editDraft(state, { ...state.draft, name: 'Reply' });
    const plan = planSave(renamed, library, checkDraft(renamed, defs));
    expect(plan).toMatchObject({
      nested: [],
      model: { name: 'Reply', class: library[1]!.class },
      previousName: 'Answer',
    });
  });

  it("adds a pasted schema's nested models first", () => {
    const state = editSchemaText(openModel(library, null), JSON.stringify(schemas.Report), defs);
    const plan = planSave(state, library, checkDraft(state, defs));
    if ('error' in plan) throw new Error(plan.error);
    expect(plan.nested.map((m) => [m.name, m.class])).toEqual([
      ['Source', editorClassPath('Source')],
    ]);
    expect(plan.model.schema).toEqual(schemas.Report);
    expect(plan.previousName).toBeUndefined();
  });

  it('saves the typed text of a model the table cannot show, once it is JSON', () => {
    const withEither = [...library, unsupported];
    const state = openModel(withEither, 'Either');
    const broken = { ...state, rawSchema: '{' };
    expect(planSave(broken, withEither, checkDraft(broken, defs))).toMatchObject({
      error: expect.stringMatching(/^Not JSON:/),
    });
    const plan = planSave(state, withEither, checkDraft(state, defs));
    expect(plan).toMatchObject({ model: unsupported, previousName: 'Either' });
  });
});
