import { useId, type CSSProperties, type ReactNode } from 'react';

/** What a field's control spreads on itself to be labelled and described. */
export type FieldControlProps = {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
};

type FormFieldProps = {
  label: ReactNode;
  /** The control's id; one is made up when not given. */
  id?: string;
  hint?: ReactNode;
  error?: ReactNode;
  /**
   * Announce the error when it appears: for checks run on submit. Checks run as the
   * user types stay quiet (the control is still marked invalid and described by it).
   */
  alert?: boolean;
  /**
   * The field is a group of controls (checkboxes), not one: the label is plain text
   * and the group names itself.
   */
  group?: boolean;
  labelClassName?: string;
  style?: CSSProperties;
  children: (control: FieldControlProps) => ReactNode;
};

/**
 * One labelled form row: label, control, hint and error, with the control pointing at
 * its hint and error (`aria-describedby`) and marked invalid while there is an error.
 *
 * @example
 * <FormField label="Epochs" error={errors.epochs}>
 *   {(control) => <input {...control} className="input" value={epochs} onChange={...} />}
 * </FormField>
 */
export function FormField({
  label,
  id,
  hint,
  error,
  alert = false,
  group = false,
  labelClassName,
  style,
  children,
}: FormFieldProps) {
  const madeUp = useId();
  const controlId = id ?? madeUp;
  const hintId = `${controlId}-hint`;
  const errorId = `${controlId}-error`;
  const hasHint = hint !== undefined && hint !== null && hint !== false;
  const hasError = error !== undefined && error !== null && error !== false && error !== '';
  const describedBy = [hasHint && hintId, hasError && errorId].filter(Boolean).join(' ');
  const control: FieldControlProps = { id: controlId };
  if (describedBy) control['aria-describedby'] = describedBy;
  if (hasError) control['aria-invalid'] = true;
  const labelClass = labelClassName ? ` ${labelClassName}` : '';
  return (
    <div className="form-row" style={style}>
      {group ? (
        <span className={`form-label${labelClass}`}>{label}</span>
      ) : (
        <label htmlFor={controlId} className={labelClassName}>
          {label}
        </label>
      )}
      {children(control)}
      {hasHint && (
        <div className="field-hint" id={hintId}>
          {hint}
        </div>
      )}
      {hasError && (
        <div className="field-error" id={errorId} role={alert ? 'alert' : undefined}>
          {error}
        </div>
      )}
    </div>
  );
}
