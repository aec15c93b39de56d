import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { CatalogueParam } from '@/lib/api/types';
import { defaults, parseParams, type FormValues } from '../../model/runConfig';
import { ParamFields } from './ParamFields';

const param = (over: Partial<CatalogueParam> & Pick<CatalogueParam, 'name' | 'type'>) =>
  ({
    label: over.name,
    description: '',
    default: null,
    nullable: false,
    required: false,
    minimum: null,
    maximum: null,
    exclusive_minimum: false,
    exclusive_maximum: false,
    choices: null,
    ...over,
  }) as CatalogueParam;

/** Settings a class might declare: one of each type the catalogue has. */
const SPECS: CatalogueParam[] = [
  param({
    name: 'prefix_length',
    label: 'Prefix length',
    type: 'int',
    default: 3,
    minimum: 1,
    description: 'characters compared',
  }),
  param({ name: 'rate', label: 'Rate', type: 'float', default: 0.5, maximum: 1 }),
  param({ name: 'strict', label: 'Strict', type: 'bool', default: true }),
  param({ name: 'mode', label: 'Mode', type: 'str', default: 'fast', choices: ['fast', 'slow'] }),
  param({ name: 'note', label: 'Note', type: 'str', nullable: true }),
  param({ name: 'seed', label: 'Seed', type: 'int', nullable: true }),
  param({ name: 'tags', label: 'Tags', type: 'str_list', nullable: true }),
  param({ name: 'in_mask', label: 'Compare only', type: 'fields', nullable: true }),
];

function Harness({ onValues }: { onValues: (values: FormValues) => void }) {
  const [values, setValues] = useState(() => defaults(SPECS));
  const { errors } = parseParams(SPECS, values);
  return (
    <ParamFields
      idPrefix="x"
      specs={SPECS}
      values={values}
      errors={errors}
      fields={['answer', 'reason']}
      onChange={(next) => {
        setValues(next);
        onValues(next);
      }}
    />
  );
}

describe('ParamFields', () => {
  it('renders each setting from its declared type, default and range', async () => {
    const user = userEvent.setup();
    const seen = vi.fn();
    render(<Harness onValues={seen} />);

    expect(screen.getByLabelText('Prefix length')).toHaveValue('3');
    expect(screen.getByText('Prefix length')).toHaveAttribute('title', 'characters compared');
    expect(screen.getByLabelText('Rate')).toHaveValue('0.5');
    expect(screen.getByLabelText('Strict')).toBeChecked();
    expect(screen.getByLabelText('Mode')).toHaveDisplayValue('fast');
    expect(within(screen.getByLabelText('Mode')).getAllByRole('option')).toHaveLength(2);
    expect(screen.getByLabelText('Note')).toHaveValue('');
    expect(screen.getByLabelText('Seed')).toHaveAttribute('placeholder', 'none');
    expect(screen.getByLabelText('Tags')).toHaveAttribute('placeholder', 'comma-separated');
    const mask = screen.getByRole('group', { name: 'in_mask' });
    expect(within(mask).getAllByRole('checkbox')).toHaveLength(2);

    await user.clear(screen.getByLabelText('Prefix length'));
    await user.type(screen.getByLabelText('Prefix length'), '0');
    expect(screen.getByLabelText('Prefix length')).toHaveAccessibleDescription('must be ≥ 1');
    await user.clear(screen.getByLabelText('Rate'));
    await user.type(screen.getByLabelText('Rate'), '2');
    expect(screen.getByLabelText('Rate')).toHaveAccessibleDescription('must be ≤ 1');

    await user.click(screen.getByLabelText('Strict'));
    await user.selectOptions(screen.getByLabelText('Mode'), 'slow');
    await user.click(within(mask).getByLabelText('answer'));
    expect(seen).toHaveBeenLastCalledWith(
      expect.objectContaining({ strict: false, mode: 'slow', in_mask: ['answer'] }),
    );
  });

  it('offers none first in a select whose setting allows it', async () => {
    const user = userEvent.setup();
    const average = param({
      name: 'average',
      label: 'Average',
      type: 'str',
      default: 'samples',
      nullable: true,
      choices: ['samples', 'micro'],
    });
    const seen = vi.fn();
    render(
      <ParamFields
        idPrefix="m"
        specs={[average]}
        values={defaults([average])}
        errors={{}}
        onChange={seen}
      />,
    );

    const options = within(screen.getByLabelText('Average')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['none', 'samples', 'micro']);
    expect(screen.getByLabelText('Average')).toHaveDisplayValue('samples');
    await user.selectOptions(screen.getByLabelText('Average'), 'none');
    expect(seen).toHaveBeenLastCalledWith({ average: '' });
  });

  it('picks output fields only when there are some', () => {
    render(
      <ParamFields
        idPrefix="y"
        specs={[SPECS[7]!]}
        values={defaults([SPECS[7]!])}
        errors={{}}
        onChange={() => {}}
      />,
    );
    expect(screen.getByRole('group', { name: 'in_mask' })).toHaveTextContent('all fields');
  });
});
