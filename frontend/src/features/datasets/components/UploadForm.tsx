import { useId, useMemo, useState } from 'react';
import { FormField } from '@/lib/components/FormField';
import { useDataModels } from '@/lib/api/ops/dataModelsList';
import { libraryModels } from '@/lib/datamodel/library';
import { useUploadDataset } from '../api/datasetsCreate';
import { defaultMapping, fileColumns, schemaFields } from '../model/columns';
import { mapRows, readHead } from '../model/uploadPreview';
import { splitSeedError, testFractionError } from '../model/uploadSettings';
import { SchemaPicker } from './SchemaPicker';
import { UploadPreview } from './UploadPreview';

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
/** How much of a file the browser reads for its columns and the preview. */
const HEAD_BYTES = 64 * 1024;

/** Drag-and-drop upload with the input / output models and the column of each field. */
export function UploadForm({ onUploaded }: { onUploaded: (datasetId: number) => void }) {
  const upload = useUploadDataset();
  // The account's library (a copy this browser kept before, until the editor moves it).
  const library = useDataModels();
  const models = useMemo(() => libraryModels(library.data), [library.data]);
  const modelNames = models.map((m) => m.name).join('\u0000');
  const [file, setFile] = useState<File | null>(null);
  const [columns, setColumns] = useState<string[]>([]);
  const [head, setHead] = useState<{ text: string; complete: boolean } | null>(null);
  const [testFraction, setTestFraction] = useState('0.2');
  const [splitSeed, setSplitSeed] = useState('0');
  const [keepValidRows, setKeepValidRows] = useState(false);
  const [name, setName] = useState('');
  // undefined: not chosen yet, so the library's first models (null: a typed schema that
  // does not parse). The library may arrive after the form: the pickers start over then.
  const [chosenInput, setInputSchema] = useState<unknown>(undefined);
  const [chosenOutput, setOutputSchema] = useState<unknown>(undefined);
  const [pickersFor, setPickersFor] = useState(modelNames);
  if (pickersFor !== modelNames) {
    setPickersFor(modelNames);
    setInputSchema(undefined);
    setOutputSchema(undefined);
  }
  const inputSchema =
    chosenInput === undefined ? (models[0]?.schema ?? EXAMPLE_INPUT) : chosenInput;
  const outputSchema =
    chosenOutput === undefined
      ? (models[1]?.schema ?? models[0]?.schema ?? EXAMPLE_OUTPUT)
      : chosenOutput;
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
    const text = await picked.slice(0, HEAD_BYTES).text();
    setColumns(fileColumns(picked.name, text));
    setHead({ text, complete: picked.size <= HEAD_BYTES });
  };
  const preview = useMemo(
    () =>
      file && head
        ? mapRows(readHead(file.name, head.text, head.complete), {
            inputSchema,
            outputSchema,
            mapping,
            csv: !/\.(jsonl?|ndjson)$/i.test(file.name),
          })
        : null,
    [file, head, inputSchema, outputSchema, mapping],
  );
  const unmapped = fields.filter((f) => !mapping[f]);
  const fractionError = testFractionError(testFraction);
  const seedError = splitSeedError(splitSeed);
  const canUpload =
    file &&
    name &&
    inputSchema &&
    outputSchema &&
    !fractionError &&
    !seedError &&
    !upload.isPending;

  return (
    <form
      className="card"
      aria-label="Upload a dataset"
      onSubmit={(e) => {
        e.preventDefault();
        if (!file || !inputSchema || !outputSchema) return;
        upload.mutate(
          {
            file,
            name,
            inputSchema,
            outputSchema,
            columnMapping: mapping,
            testFraction: Number(testFraction),
            splitSeed: Number(splitSeed),
            keepValidRows,
          },
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
        key={`input-${modelNames}`}
        label="Input model"
        models={models}
        example={EXAMPLE_INPUT}
        onChange={(schema) => setInputSchema(schema)}
      />
      <SchemaPicker
        key={`output-${modelNames}`}
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
      {preview && <UploadPreview rows={preview} complete={head?.complete ?? false} />}
      <div style={{ marginTop: 8 }}>
        <FormField
          label="Test fraction"
          id="dataset-test-fraction"
          hint="The share of rows held out to evaluate the program before and after training."
          error={fractionError}
        >
          {(control) => (
            <input
              {...control}
              className="input"
              type="number"
              min={0}
              max={0.99}
              step={0.05}
              value={testFraction}
              onChange={(e) => setTestFraction(e.target.value)}
            />
          )}
        </FormField>
        <FormField
          label="Split seed"
          id="dataset-split-seed"
          hint="Which rows are held out: the same seed gives the same split."
          error={seedError}
        >
          {(control) => (
            <input
              {...control}
              className="input"
              type="number"
              step={1}
              value={splitSeed}
              onChange={(e) => setSplitSeed(e.target.value)}
            />
          )}
        </FormField>
      </div>
      <label className="form-row" style={{ display: 'flex', gap: 6, alignItems: 'baseline' }}>
        <input
          type="checkbox"
          checked={keepValidRows}
          onChange={(e) => setKeepValidRows(e.target.checked)}
        />
        <span>
          Keep the valid rows{' '}
          <span className="note">
            (rows that do not fit the models are dropped and listed, instead of making the whole
            dataset unusable)
          </span>
        </span>
      </label>
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
