import { useMemo, useState } from 'react';
import { CopyBlock } from '@/lib/components/CopyBlock';
import { FormField } from '@/lib/components/FormField';
import { ApiError } from '@/lib/api/errors';
import { usePredict } from '../api/deploymentsPredict';
import { useToken } from '../api/authToken';
import type { Deployment } from '../api/types';
import { describeBytes } from '../model/inputLimit';
import { curlSnippet, exampleInput, pythonSnippet } from '../model/snippets';

/**
 * "Use it": the deployment's URL and input schema, copy-paste snippets (curl, Python with
 * requests) built from an example input the user can edit, and a way to try it from here.
 */
export function UseItTab({ deployment }: { deployment: Deployment }) {
  const { target } = deployment;
  const initial = useMemo(
    () => JSON.stringify(exampleInput(target.input_schemas, target.single_input), null, 2),
    [target],
  );
  const [text, setText] = useState(initial);
  const predict = usePredict(deployment.name);
  const token = useToken();
  let input: unknown = null;
  let parseError = '';
  try {
    input = JSON.parse(text);
  } catch (error) {
    parseError = `Not JSON: ${(error as Error).message}`;
  }
  const problems = predict.error instanceof ApiError ? predict.error.problems : [];
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
      <div className="card">
        <h2>Endpoint</h2>
        <p>
          <code className="mono" data-testid="predict-url">
            POST {deployment.predict_url}
          </code>
        </p>
        <p className="note">
          Send <code className="mono">{'{"input": …}'}</code> for one prediction or{' '}
          <code className="mono">{'{"inputs": [ … ]}'}</code> for up to 100, with your API token in{' '}
          <code className="mono">Authorization: Token …</code>. An input that does not fit the
          schema below answers 400 with the path of each bad field; one larger than{' '}
          {describeBytes(deployment.max_input_bytes)} answers 413.
        </p>
        <div className="page-head">
          <button type="button" className="btn btn-small" onClick={() => token.mutate()}>
            Show my API token
          </button>
          {token.data && (
            <code className="mono" data-testid="api-token">
              export STUDIO_TOKEN={token.data}
            </code>
          )}
          {token.isError && <span className="field-error">{token.error.message}</span>}
        </div>
      </div>
      <div className="grid-2">
        <div className="card">
          <h2>Input schema</h2>
          {target.input_schemas.map((entry) => (
            <div key={entry.name}>
              <p className="note">
                {entry.name}
                {target.single_input ? '' : ' (one object of the list, in this order)'}
              </p>
              <pre className="block" data-testid="input-schema">
                {JSON.stringify(entry.schema, null, 2)}
              </pre>
            </div>
          ))}
        </div>
        <div className="card">
          <h2>Try it</h2>
          <FormField label="Input" error={parseError} hint="Edit it: the snippets follow.">
            {(control) => (
              <textarea
                {...control}
                className="textarea mono"
                rows={6}
                value={text}
                onChange={(e) => setText(e.target.value)}
              />
            )}
          </FormField>
          <button
            type="button"
            className="btn btn-primary"
            disabled={Boolean(parseError) || predict.isPending}
            onClick={() => predict.mutate(input)}
          >
            {predict.isPending ? 'Calling…' : 'Send'}
          </button>
          {predict.data && (
            <pre className="block" data-testid="predict-output" style={{ marginTop: 8 }}>
              {JSON.stringify(predict.data.output, null, 2)}
            </pre>
          )}
          {predict.isError && (
            <ul className="field-error" role="alert">
              {(problems.length ? problems : [{ path: '', message: predict.error.message }]).map(
                (problem) => (
                  <li key={`${problem.path}:${problem.message}`}>
                    {problem.path ? `${problem.path}: ` : ''}
                    {problem.message}
                  </li>
                ),
              )}
            </ul>
          )}
        </div>
      </div>
      {!parseError && (
        <>
          <CopyBlock title="curl" text={curlSnippet(deployment.predict_url, input)} />
          <CopyBlock title="Python" text={pythonSnippet(deployment.predict_url, input)} />
        </>
      )}
    </div>
  );
}
