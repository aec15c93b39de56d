import { useState } from 'react';
import { ApiError } from '@/lib/api/errors';
import { FormField } from '@/lib/components/FormField';
import { useUpdateDeployment } from '../api/deploymentsPartialUpdate';
import type { Deployment } from '../api/types';
import { describeBytes, KB, parseLimitKb } from '../model/inputLimit';

/** The largest input the deployment takes: shown, and changed by its owner. */
export function InputLimit({ deployment }: { deployment: Deployment }) {
  const [text, setText] = useState<string | null>(null);
  const update = useUpdateDeployment(deployment.name);
  const shown = text ?? String(Math.round(deployment.max_input_bytes / KB));
  const parsed = parseLimitKb(shown);
  const serverError =
    update.error instanceof ApiError
      ? update.error.problems.map((p) => p.message).join('; ')
      : update.error?.message;
  return (
    <form
      className="card"
      aria-label="Limits"
      onSubmit={(e) => {
        e.preventDefault();
        if ('bytes' in parsed)
          update.mutate({ max_input_bytes: parsed.bytes }, { onSuccess: () => setText(null) });
      }}
    >
      <h2>Limits</h2>
      <p className="note" data-testid="input-limit">
        Largest input: {describeBytes(deployment.max_input_bytes)}. A larger input, or batch row, is
        refused (413) and never sent to the model.
      </p>
      <FormField
        label="Largest input (kB)"
        id="input-limit-kb"
        error={'error' in parsed ? parsed.error : serverError}
      >
        {(control) => (
          <input
            {...control}
            className="input"
            inputMode="numeric"
            value={shown}
            onChange={(e) => setText(e.target.value)}
          />
        )}
      </FormField>
      <button
        type="submit"
        className="btn"
        disabled={'error' in parsed || text === null || update.isPending}
      >
        Save
      </button>
    </form>
  );
}
