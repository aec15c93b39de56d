import { describe, expect, it } from 'vitest';
import { STARTER_MODELS } from './defaults';
import type { SavedDataModel } from './document';
import { fromStored, isEmptyPlan, planSync, reconcile, toBody } from './librarySync';

const schema = (title: string, field = 'text') => ({
  type: 'object',
  title,
  properties: { [field]: { type: 'string', title: field } },
  required: [field],
});
const model = (name: string, field?: string): SavedDataModel => ({
  name,
  class: `studio_editor.${name}`,
  schema: schema(name, field),
});

describe('planSync', () => {
  const stored = [
    { id: 1, model: model('Query') },
    { id: 2, model: model('Answer') },
  ];

  it('asks nothing when the account already holds the library', () => {
    expect(isEmptyPlan(planSync(stored, [model('Query'), model('Answer')]))).toBe(true);
  });

  it('creates new models, updates changed ones and removes the rest, by name', () => {
    const plan = planSync(stored, [model('Query', 'question'), model('Reply')]);
    expect(plan.remove.map((r) => r.id)).toEqual([2]);
    expect(plan.update).toEqual([{ id: 1, model: model('Query', 'question') }]);
    expect(plan.create).toEqual([model('Reply')]);
  });

  it('updates a model whose class changed only', () => {
    const moved = { ...model('Query'), class: 'my_package.Query' };
    expect(planSync(stored, [moved, model('Answer')]).update).toEqual([{ id: 1, model: moved }]);
  });
});

describe('reconcile', () => {
  it("keeps the account's models and adds what the browser kept under new names", () => {
    const library = reconcile({
      stored: [model('Query')],
      legacy: [model('Query', 'old'), model('Notes')],
      local: [],
      starters: STARTER_MODELS,
    });
    expect(library).toEqual([model('Query'), model('Notes')]);
  });

  it("lets the canvas's models win over the stored ones of the same name", () => {
    const library = reconcile({
      stored: [model('Query'), model('Answer')],
      legacy: [],
      local: [model('Answer', 'reply'), model('Extra'), model('Query')],
      starters: STARTER_MODELS,
    });
    expect(library).toEqual([model('Query'), model('Answer', 'reply'), model('Extra')]);
  });

  it('gives an empty account the starter models', () => {
    expect(reconcile({ stored: [], legacy: [], local: [], starters: STARTER_MODELS })).toBe(
      STARTER_MODELS,
    );
  });
});

describe('stored models', () => {
  it('map to the editor form and back', () => {
    const row = {
      id: 4,
      name: 'Query',
      class_path: '',
      schema: schema('Query'),
      created_at: '',
      updated_at: '',
    };
    const { id, model: editor } = fromStored(row);
    expect(id).toBe(4);
    expect(editor.class).toBe('studio_editor.Query'); // drawn here: a path that never imports
    expect(toBody(editor)).toEqual({
      name: 'Query',
      class_path: 'studio_editor.Query',
      schema: schema('Query'),
    });
  });
});
