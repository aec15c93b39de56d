import { useEffect, useRef, useState } from 'react';
import { ApiError } from '@/lib/api/errors';
import { FormField } from '@/lib/components/FormField';
import { useReviewPrediction } from '../../api/deploymentsPredictionsReview';
import type { PredictionLog, PredictionReview as Review } from '../../api/types';
import { fromValues, plainFields, toValues, type FieldValues } from '../../model/correctionFields';
import { keyAction, type QueueKeyAction, type Verdict } from '../../model/reviewQueue';

const pretty = (value: unknown) => (value == null ? '' : JSON.stringify(value, null, 2));

type Parsed = { value: unknown } | { error: string };

function parseCorrection(text: string): Parsed {
  if (text.trim() === '') return { value: null };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { error: 'not JSON: write the right output as a JSON object' };
  }
}

type Props = {
  name: string;
  row: PredictionLog;
  /** After a verdict is stored, with the row as stored (the queue moves on). */
  onReviewed?: (verdict: Verdict, row: PredictionLog) => void;
  /** The output schema of the target that answered: plain fields get a form, else JSON. */
  outputSchema?: unknown;
  /** In the review queue: the keys act (r, w, c here; the others are passed on). */
  onQueueKey?: (action: Exclude<QueueKeyAction, 'right' | 'wrong' | 'correct'>) => void;
};

/**
 * One logged prediction opened for review: its input and output, Right / Wrong, the
 * correct output (JSON, checked by the server against the program's output) and a note.
 * A verdict also sends the correction and the note where they were edited.
 */
export function PredictionReview({ name, row, onReviewed, onQueueKey, outputSchema }: Props) {
  const initial = pretty(row.correction ?? row.outputs);
  const [correction, setCorrection] = useState(initial);
  const fields = plainFields(outputSchema);
  const [byField, setByField] = useState(fields !== null);
  const initialValues = fields ? toValues(fields, row.correction ?? row.outputs) : {};
  const [values, setValues] = useState<FieldValues>(initialValues);
  const fromForm = fields && byField ? fromValues(fields, values) : null;
  const formChanged = JSON.stringify(values) !== JSON.stringify(initialValues);
  const [note, setNote] = useState(row.note);
  const review = useReviewPrediction(name);
  const parsed = parseCorrection(correction);
  const problems = review.error instanceof ApiError ? review.error.problems : [];
  const at = (prefix: string) =>
    problems
      .filter(
        (p) =>
          p.path === prefix || p.path.startsWith(`${prefix}.`) || p.path.startsWith(`${prefix}[`),
      )
      .map((p) =>
        p.path === prefix ? p.message : `${p.path.slice(prefix.length + 1)}: ${p.message}`,
      )
      .join('; ') || undefined;
  const general = problems.filter(
    (p) => !['correction', 'note', 'verdict'].some((f) => p.path.startsWith(f)),
  );

  const edits = (): Review | null => {
    const body: Review = {};
    if (fromForm) {
      if ('error' in fromForm) return null;
      if (formChanged) body.correction = fromForm.value;
    } else if (correction !== initial) {
      if ('error' in parsed) return null;
      body.correction = parsed.value;
    }
    if (note !== row.note) body.note = note;
    return body;
  };
  const send = (verdict?: Verdict) => {
    const body = edits();
    if (body === null || review.isPending) return;
    if (verdict) body.verdict = verdict;
    review.mutate(
      { id: row.id, review: body },
      { onSuccess: (stored) => verdict && onReviewed?.(verdict, stored) },
    );
  };
  const correctionRef = useRef<HTMLDivElement>(null);
  const sendRef = useRef(send);
  useEffect(() => {
    sendRef.current = send; // the key handler sends with the latest drafts
  });
  useEffect(() => {
    if (!onQueueKey) return undefined;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const inField = !!target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
      const action = keyAction(event.key, inField);
      if (!action || event.ctrlKey || event.metaKey || event.altKey) return;
      event.preventDefault();
      if (action === 'right' || action === 'wrong') sendRef.current(action);
      else if (action === 'correct')
        correctionRef.current?.querySelector<HTMLElement>('input, textarea')?.focus();
      else if (action === 'leave' && inField)
        target?.blur(); // Esc in a field: back to the keys
      else onQueueKey(action);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onQueueKey]);

  return (
    <div className="card" aria-label={`Prediction ${row.id}`} role="region">
      <h2>
        Prediction #{row.id}{' '}
        <span className="note">
          {new Date(row.created_at).toLocaleString()} · {row.latency_s.toFixed(2)} s ·{' '}
          {row.prompt_tokens + row.completion_tokens} tokens
        </span>
      </h2>
      <div className="grid-2">
        <div>
          <h3>Input</h3>
          <pre data-testid="review-input">{pretty(row.inputs)}</pre>
        </div>
        <div>
          <h3>Output</h3>
          {row.failed ? (
            <div className="field-error">Failed: {row.error}</div>
          ) : (
            <pre data-testid="review-output">{pretty(row.outputs)}</pre>
          )}
        </div>
      </div>
      <p>
        Verdict: <strong data-testid="review-verdict">{row.verdict ?? 'not reviewed'}</strong>
      </p>
      <div style={{ display: 'flex', gap: 8 }}>
        <button
          type="button"
          className="btn"
          disabled={review.isPending}
          onClick={() => send('right')}
        >
          Right
        </button>
        <button
          type="button"
          className="btn"
          disabled={review.isPending}
          onClick={() => send('wrong')}
        >
          Wrong
        </button>
      </div>
      {at('verdict') && <div className="field-error">{at('verdict')}</div>}
      <div ref={correctionRef}>
        {fields && (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => {
              // Each way, the edits so far carry over where they read.
              if (byField && fromForm && 'value' in fromForm) setCorrection(pretty(fromForm.value));
              if (!byField && 'value' in parsed) setValues(toValues(fields, parsed.value));
              setByField(!byField);
            }}
          >
            {byField ? 'Edit the correction as JSON' : 'Edit the correction by field'}
          </button>
        )}
        {fields && byField ? (
          <fieldset style={{ border: 0, padding: 0 }}>
            <legend>Correction (the right output)</legend>
            {fields.map((f) => (
              <FormField
                key={f.name}
                label={f.name}
                id={`correction-${row.id}-${f.name}`}
                error={
                  (fromForm && 'field' in fromForm && fromForm.field === f.name
                    ? fromForm.error
                    : undefined) ?? at(`correction.${f.name}`)
                }
              >
                {(control) =>
                  f.kind === 'boolean' ? (
                    <input
                      {...control}
                      type="checkbox"
                      checked={values[f.name] === true}
                      onChange={(e) => setValues({ ...values, [f.name]: e.target.checked })}
                    />
                  ) : (
                    <input
                      {...control}
                      className="input"
                      inputMode={f.kind === 'string' ? undefined : 'decimal'}
                      value={String(values[f.name] ?? '')}
                      onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
                    />
                  )
                }
              </FormField>
            ))}
          </fieldset>
        ) : (
          <FormField
            label="Correction (the right output, JSON; empty: none)"
            id={`correction-${row.id}`}
            error={'error' in parsed ? parsed.error : at('correction')}
          >
            {(control) => (
              <textarea
                {...control}
                className="input mono"
                rows={5}
                value={correction}
                onChange={(e) => setCorrection(e.target.value)}
              />
            )}
          </FormField>
        )}
      </div>
      <FormField label="Note" id={`note-${row.id}`} error={at('note')}>
        {(control) => (
          <textarea
            {...control}
            className="input"
            rows={2}
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        )}
      </FormField>
      <button
        type="button"
        className="btn"
        disabled={review.isPending || edits() === null || Object.keys(edits() ?? {}).length === 0}
        onClick={() => send()}
      >
        Save correction and note
      </button>
      {general.length > 0 && (
        <div className="alert" role="alert">
          {general.map((p) => p.message).join('; ')}
        </div>
      )}
    </div>
  );
}
