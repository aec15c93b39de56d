import { python } from '@codemirror/lang-python';
import CodeMirror from '@uiw/react-codemirror';

const EXTENSIONS = [python()];

/**
 * Python source with syntax highlighting (CodeMirror 6), line numbers, bracket matching and
 * Python indentation. The code is only text here: it runs in the server's sandbox.
 */
export function CodeEditor({
  value,
  onChange,
  label,
  readOnly = false,
}: {
  value: string;
  onChange: (value: string) => void;
  label: string;
  readOnly?: boolean;
}) {
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      extensions={EXTENSIONS}
      readOnly={readOnly}
      minHeight="320px"
      maxHeight="640px"
      basicSetup={{ tabSize: 4 }}
      aria-label={label}
    />
  );
}
