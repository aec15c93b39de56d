import { useId, useMemo, useState } from 'react';
import { FormField } from '@/lib/components/FormField';
import { loadLibrary, type LibraryModel } from '@/lib/datamodel/library';
import { useUploadDataset } from '../api/datasetsCreate';
import { defaultMapping, fileColumns, schemaFields } from '../model/columns';
import { SchemaPicker } from './SchemaPicker';

const EXAMPLE_INPUT = {
  additionalProperties: false,
  properties: { query: { title: 'Query', type: 'string' } },
  required: ['query'],
  title: 'Query',
  type: 'object',
};
const EXAMPLE_OUTPUT = {
  additionalProperties: false,
  properties: { answer: { title: 'Answer', type: 'string' } },
  required: ['answer'],
  title: 'Answer',
  type: 'object',
};
const ACCEPT = '.csv,.jsonl,.json,text/csv,application/json';

/** Drag-and-drop upload with the input / output models and the column of each field. */
export function UploadForm({ onUploaded }: { onUploaded: (datasetId: number) => void }) {
  const upload = useUploadDataset();
  const models = useMemo<LibraryModel[]>(() => loadLibrary() ?? [], []);
  const [file, setFile] = useState<File | null>(null);
  const [columns, setColumns] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [inputSchema, setInputSchema] = useState<unknown>(models[0]?.schema ?? EXAMPLE_INPUT);
  const [outputSchema, setOutputSchema] = useState<unknown>(
    models[1]?.schema ?? models[0]?.schema ?? EXAMPLE_OUTPUT,
  );
  // Only what the user chose; every other field defaults to the column of its own name.
  const [overrides, setOverrides] = useState<Record<string, string>>({});
  const [over, setOver] = useState(false);
  const fileId = useId();
  const fields = useMemo(
    () => [...new Set([...schemaFields(inputSchema), ...schemaFields(outputSchema)])],
    [inputSchema, outputSchema],
  );
  const mapping = useMemo(() => {
    const chosen = { ...defaultMapping(fields, columns), ...overrides };
    return Object.fromEntries(Object.entries(chosen).filter(([f, c]) => fields.includes(f) && c));
  }, [fields, columns, overrides]);

  const choose = async (picked: File | undefined) => {
    if (!picked) return;
    setFile(picked);
    setOverrides({});
    setName((current) => current || picked.name.replace(/\.(csv|jsonl|json)$/i, ''));
    const head = await picked.slice(0, 64 * 1024).text();
    setColumns(fileColumns(picked.name, head));
  };
  const unmapped = fields.filter((f) => !mapping[f]);
  const canUpload = file && name && inputSchema && outputSchema && !upload.isPending;

  return (
    <form
      className="card"
      aria-label="Upload a dataset"
      onSubmit={(e) => {
        e.preventDefault();
        if (!file || !inputSchema || !outputSchema) return;
        upload.mutate(
          { file, name, inputSchema, outputSchema, columnMapping: mapping },
          { onSuccess: (dataset) => onUploaded(dataset.id) },
        );
      }}
    >
      <h2>Upload a dataset</h2>
      <label
        htmlFor={fileId}
        className={`dropzone ${over ? 'over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          void choose(e.dataTransfer.files[0]);
        }}
      >
        {file ? (
          <>
            <b>{file.name}</b> ({(file.size / 1024).toFixed(1)} kB) — drop another file to replace
            it
          </>
        ) : (
          'Drop a CSV, JSONL or JSON file here, or click to choose one'
        )}
      </label>
      <input
        id={fileId}
        type="file"
        accept={ACCEPT}
        className="visually-hidden"
        aria-label="Dataset file"
        onChange={(e) => {
          void choose(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      <FormField label="Name" id="dataset-name" style={{ marginTop: 10 }}>
        {(control) => (
          <input
            {...control}
            className="input"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </FormField>
      <SchemaPicker
        label="Input model"
        models={models}
        example={EXAMPLE_INPUT}
        onChange={(schema) => setInputSchema(schema)}
      />
      <SchemaPicker
        label="Output model"
        models={models.length > 1 ? [models[1]!, ...models.filter((_, i) => i !== 1)] : models}
        example={EXAMPLE_OUTPUT}
        onChange={(schema) => setOutputSchema(schema)}
      />
      {fields.length > 0 && (
        <fieldset style={{ border: 0, padding: 0, margin: '4px 0 8px' }}>
          <legend className="note">
            Column of each field {columns.length === 0 && '(choose a file first)'}
          </legend>
          {fields.map((field) => (
            <FormField key={field} label={field} id={`map-${field}`} labelClassName="mono">
              {(control) => (
                <select
                  {...control}
                  className="select"
                  value={mapping[field] ?? ''}
                  onChange={(e) => setOverrides({ ...overrides, [field]: e.target.value })}
                >
                  <option value="">— not mapped —</option>
                  {columns.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
          ))}
        </fieldset>
      )}
      {file && unmapped.length > 0 && (
        <p className="note">
          No column chosen for: {unmapped.join(', ')} (the server looks for a column of the same
          name).
        </p>
      )}
      {upload.isError && (
        <div className="alert" role="alert">
          {upload.error.message}
        </div>
      )}
      <button type="submit" className="btn btn-primary" disabled={!canUpload}>
        {upload.isPending ? 'Uploading…' : 'Upload'}
      </button>
    </form>
  );
}
