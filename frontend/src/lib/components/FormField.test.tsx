import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FormField } from './FormField';

describe('FormField', () => {
  it('labels its control and leaves it undescribed without hint or error', () => {
    render(<FormField label="Epochs">{(control) => <input {...control} />}</FormField>);
    const input = screen.getByLabelText('Epochs');
    expect(input).not.toHaveAttribute('aria-describedby');
    expect(input).not.toHaveAttribute('aria-invalid');
  });

  it('describes the control by its hint and error, and marks it invalid', () => {
    render(
      <FormField label="Epochs" id="fit-epochs" hint="How many passes" error="must be ≥ 1">
        {(control) => <input {...control} />}
      </FormField>,
    );
    const input = screen.getByLabelText('Epochs');
    expect(input).toHaveAttribute('id', 'fit-epochs');
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription('How many passes must be ≥ 1');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('announces a submit-time error', () => {
    render(
      <FormField label="Name" error="A name is required." alert>
        {(control) => <input {...control} />}
      </FormField>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('A name is required.');
    expect(screen.getByLabelText('Name')).toHaveAccessibleDescription('A name is required.');
  });

  it('gives a group a text label and leaves its name to the group', () => {
    render(
      <FormField label="Ignore (out_mask)" group>
        {(control) => <div {...control} role="group" aria-label="out_mask" />}
      </FormField>,
    );
    expect(screen.getByRole('group', { name: 'out_mask' })).toBeInTheDocument();
    expect(screen.getByText('Ignore (out_mask)').tagName).toBe('SPAN');
  });
});
