import { useState, type ComponentProps } from 'react';

type CommonProps = {
  value: string;
  /** Called on blur or Enter with the new text; return a message to keep the draft and show it. */
  onCommit: (value: string) => string | null | void;
  label: string;
};

/**
 * A text field that changes the program only when the user is done (blur or Enter), so one
 * edit is one undo step and a half-typed name is never refused.
 */
export function CommitField({
  value,
  onCommit,
  label,
  multiline = false,
  ...rest
}: CommonProps & { multiline?: boolean } & Omit<ComponentProps<'input'>, 'value' | 'onChange'>) {
  const [draft, setDraft] = useState(value);
  const [source, setSource] = useState(value);
  const [error, setError] = useState<string | null>(null);
  if (source !== value) {
    // The program changed underneath (undo, another edit): show the new value.
    setSource(value);
    setDraft(value);
    setError(null);
  }
  const commit = () => {
    if (draft === value) return setError(null);
    const message = onCommit(draft);
    setError(message || null);
  };
  const common = {
    'aria-label': label,
    'aria-invalid': error ? true : undefined,
    onBlur: commit,
  };
  return (
    <>
      {multiline ? (
        <textarea
          className="textarea"
          rows={5}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) commit();
            if (e.key === 'Escape') setDraft(value);
          }}
          {...common}
        />
      ) : (
        <input
          className="input"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit();
            if (e.key === 'Escape') setDraft(value);
          }}
          {...rest}
          {...common}
        />
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
