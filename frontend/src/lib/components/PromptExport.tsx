import { useEffect, useRef, useState } from 'react';
import { downloadText } from '@/lib/download';
import {
  promptFileStem,
  usePromptExport,
  type GeneratorPrompt,
  type PromptSource,
} from '@/lib/api/ops/promptExport';
import { CopyBlock } from './CopyBlock';

type Format = 'messages' | 'text';

const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function GeneratorSection({ prompt, format }: { prompt: GeneratorPrompt; format: Format }) {
  return (
    <section aria-label={`Prompt of ${prompt.name}`}>
      <CopyBlock
        title={prompt.name}
        text={format === 'messages' ? pretty(prompt.messages) : prompt.text}
      />
    </section>
  );
}

/**
 * "Export prompt": each Generator's system and few-shot messages exactly as the engine
 * sends them, as OpenAI-style messages or plain text, with the input's place marked; and a
 * Python snippet that loads the whole program with `optimizer_core`.
 */
export function PromptExport({ source, onClose }: { source: PromptSource; onClose: () => void }) {
  const prompt = usePromptExport(source);
  const [format, setFormat] = useState<Format>('messages');
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const node = dialog.current;
    if (node && !node.open) node.showModal?.();
  }, []);
  const stem = promptFileStem(source);
  const data = prompt.data;
  return (
    <dialog
      ref={dialog}
      aria-label="Export prompt"
      onClose={onClose}
      onCancel={onClose}
      style={{ width: 'min(900px, 92vw)', maxHeight: '86vh' }}
    >
      <div className="page-head">
        <h2 style={{ margin: 0 }}>Export prompt</h2>
        <span className="spacer" />
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      {prompt.isPending && <p className="note">Loading…</p>}
      {prompt.isError && (
        <p className="alert" role="alert">
          {prompt.error.message}
        </p>
      )}
      {data && (
        <>
          <p className="note">
            Put the input's JSON where <code>{data.input_placeholder}</code> stands and these are
            the messages the engine sends (it also asks for the output schema as the response
            format).
          </p>
          <div role="radiogroup" aria-label="Format" className="page-head">
            {(
              [
                ['messages', 'Messages (JSON)'],
                ['text', 'Plain text'],
              ] as const
            ).map(([value, label]) => (
              <label key={value}>
                <input
                  type="radio"
                  name="prompt-format"
                  checked={format === value}
                  onChange={() => setFormat(value)}
                />{' '}
                {label}
              </label>
            ))}
            <span className="spacer" />
            <button
              type="button"
              className="btn btn-small"
              onClick={() =>
                downloadText(
                  `${stem}-prompts.json`,
                  pretty(
                    data.generators.map(({ name, messages, response_format, temperature }) => ({
                      name,
                      messages,
                      response_format,
                      temperature,
                    })),
                  ),
                )
              }
            >
              Download prompts
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => downloadText(`${stem}.json`, pretty(data.document))}
            >
              Download program.json
            </button>
          </div>
          {data.generators.length === 0 && <p className="note">This program has no Generator.</p>}
          {data.generators.map((generator) => (
            <GeneratorSection key={generator.name} prompt={generator} format={format} />
          ))}
          <CopyBlock title="Python" text={data.python} />
        </>
      )}
    </dialog>
  );
}
