import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { datasetsKey } from '@/lib/api/ops/datasetsList';
import type { Dataset } from '@/lib/api/types';

export type Upload = {
  file: File;
  name: string;
  inputSchema: unknown;
  outputSchema: unknown;
  columnMapping: Record<string, string>;
  /** The share of rows held out as the test split (the server's default: 0.2). */
  testFraction?: number;
  /** The seed that draws the test rows (default 0). */
  splitSeed?: number;
  /** Drop the rows that do not validate instead of leaving the dataset invalid. */
  keepValidRows?: boolean;
};

/** Upload a CSV / JSONL / JSON file; the worker then validates it row by row. */
export async function uploadDataset(upload: Upload): Promise<Dataset> {
  const form = new FormData();
  form.append('file', upload.file);
  form.append('name', upload.name);
  form.append('input_schema', JSON.stringify(upload.inputSchema));
  form.append('output_schema', JSON.stringify(upload.outputSchema));
  form.append('column_mapping', JSON.stringify(upload.columnMapping));
  form.append('test_fraction', String(upload.testFraction ?? 0.2));
  form.append('split_seed', String(upload.splitSeed ?? 0));
  form.append('keep_valid_rows', upload.keepValidRows ? 'true' : 'false');
  return unwrap(
    await api.POST('/api/datasets/', {
      // The typed body is what the form carries; the serializer sends the FormData.
      body: {} as never,
      bodySerializer: () => form,
    }),
  );
}

export function useUploadDataset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: uploadDataset,
    onSuccess: () => client.invalidateQueries({ queryKey: datasetsKey }),
  });
}
