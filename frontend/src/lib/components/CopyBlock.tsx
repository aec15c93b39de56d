import { useState } from 'react';

/** A titled block of text to copy: a snippet, a prompt, a command. */
export function CopyBlock({ title, text }: { title: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await globalThis.navigator?.clipboard?.writeText(text);
    setCopied(true);
  };
  return (
    <div className="card">
      <div className="page-head" style={{ marginBottom: 6 }}>
        <h2 style={{ margin: 0 }}>{title}</h2>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-small"
          aria-label={`Copy ${title}`}
          onClick={() => void copy()}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre className="block" aria-label={`${title} snippet`} style={{ maxHeight: 'none' }}>
        {text}
      </pre>
    </div>
  );
}
