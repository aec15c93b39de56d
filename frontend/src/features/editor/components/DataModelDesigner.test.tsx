import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import schemas from '@/lib/datamodel/__fixtures__/schemas.json';
import { STARTER_MODELS, starterGraph } from '../model/defaults';
import { useEditorStore } from '../store/editorStore';
import { DataModelDesigner } from './DataModelDesigner';

beforeEach(() => {
  useEditorStore.setState({
    ...starterGraph(),
    dataModels: structuredClone(STARTER_MODELS),
    notice: null,
  });
  useEditorStore.temporal.getState().clear();
});

const schemaBox = () => screen.getByRole('textbox', { name: /JSON schema/ }) as HTMLTextAreaElement;

describe('DataModelDesigner', () => {
  it('shows a library model as the schema pydantic emits', () => {
    render(<DataModelDesigner initialName="Answer" onClose={() => {}} />);
    expect(JSON.parse(schemaBox().value)).toEqual(STARTER_MODELS[1]!.schema);
    expect(screen.getByLabelText('Field name')).toHaveValue('answer');
  });

  it('builds a model from fields and saves it to the library', async () => {
    const user = userEvent.setup();
    render(<DataModelDesigner initialName={null} onClose={() => {}} />);
    const name = screen.getByLabelText('Model name');
    await user.clear(name);
    await user.type(name, 'Verdict');
    await user.selectOptions(screen.getByLabelText('Type of text'), 'enum');
    const values = screen.getByLabelText('Type of text values');
    await user.clear(values);
    await user.type(values, 'yes, no');
    await user.click(screen.getByRole('button', { name: '+ Add field' }));
    await user.selectOptions(screen.getByLabelText('Type of field'), 'integer');
    await user.click(screen.getByLabelText('field is required'));
    await user.type(screen.getByLabelText('Default of field'), '2');
    expect(JSON.parse(schemaBox().value)).toEqual({
      additionalProperties: false,
      properties: {
        text: { enum: ['yes', 'no'], title: 'Text', type: 'string' },
        field: { default: 2, title: 'Field', type: 'integer' },
      },
      required: ['text'],
      title: 'Verdict',
      type: 'object',
    });
    await user.click(screen.getByRole('button', { name: 'Add to library' }));
    expect(useEditorStore.getState().dataModels.map((m) => m.name)).toEqual([
      'Query',
      'Answer',
      'Verdict',
    ]);
  });

  it('lists what is wrong with the fields', async () => {
    const user = userEvent.setup();
    render(<DataModelDesigner initialName="Answer" onClose={() => {}} />);
    await user.type(screen.getByLabelText('Field name'), ' x');
    expect(within(screen.getByRole('dialog')).getAllByRole('alert')[0]).toHaveTextContent(
      'Field "answer x": the name must be a Python identifier.',
    );
    await user.click(screen.getByRole('button', { name: 'Save model' }));
    expect(screen.getByText('Fix the problems listed first.')).toBeInTheDocument();
  });

  it('reads a pasted pydantic schema, nested models included, and flags invalid JSON', async () => {
    const user = userEvent.setup();
    render(<DataModelDesigner initialName={null} onClose={() => {}} />);
    fireEvent.change(schemaBox(), { target: { value: '{"type": "object", ' } });
    expect(screen.getByText(/^Not JSON:/)).toBeInTheDocument();
    fireEvent.change(schemaBox(), { target: { value: JSON.stringify(schemas.Report) } });
    expect(screen.queryByText(/^Not JSON:/)).toBeNull();
    expect(screen.getByLabelText('Model name')).toHaveValue('Report');
    expect(screen.getAllByLabelText('Field name')).toHaveLength(14);
    await user.click(screen.getByRole('button', { name: 'Add to library' }));
    const library = useEditorStore.getState().dataModels;
    expect(library.map((m) => m.name)).toEqual(['Query', 'Answer', 'Source', 'Report']);
    expect(library.find((m) => m.name === 'Report')?.schema).toEqual(schemas.Report);
  });
});
