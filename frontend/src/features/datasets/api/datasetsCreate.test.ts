import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { uploadDataset } from './datasetsCreate';

afterEach(() => vi.unstubAllGlobals());

/** Node's own File and FormData: the fetch under test (undici) cannot send jsdom's. */
async function nodeFile(name: string, text: string): Promise<File> {
  const body = [
    '--b',
    `Content-Disposition: form-data; name="f"; filename="${name}"`,
    'Content-Type: text/csv',
    '',
    text,
    '--b--',
    '',
  ].join('\r\n');
  const parsed = new Response(body, {
    headers: { 'content-type': 'multipart/form-data; boundary=b' },
  });
  const form = await parsed.formData();
  vi.stubGlobal('FormData', form.constructor);
  return form.get('f') as File;
}

describe('uploadDataset', () => {
  it('sends the file with the schemas and mapping as multipart JSON fields', async () => {
    document.cookie = 'csrftoken=abc; path=/';
    const file = await nodeFile('caps.csv', 'question,answer\nq,a\n');
    const calls = mockFetch({ 'POST /api/datasets/': [201, { id: 9, status: 'uploaded' }] });
    const dataset = await uploadDataset({
      file,
      name: 'caps',
      inputSchema: { properties: { query: { type: 'string' } } },
      outputSchema: { properties: { answer: { type: 'string' } } },
      columnMapping: { query: 'question' },
    });
    expect(dataset).toMatchObject({ id: 9 });
    const form = calls[0]!.body as FormData;
    expect(calls[0]!.headers.get('X-CSRFToken')).toBe('abc');
    expect(form.get('name')).toBe('caps');
    expect(JSON.parse(String(form.get('column_mapping')))).toEqual({ query: 'question' });
    expect(JSON.parse(String(form.get('input_schema')))).toEqual({
      properties: { query: { type: 'string' } },
    });
    expect((form.get('file') as File).name).toBe('caps.csv');
    expect(await (form.get('file') as File).text()).toBe('question,answer\nq,a\n');
    // The defaults: the server's own split, and a bad row makes the dataset invalid.
    expect(form.get('test_fraction')).toBe('0.2');
    expect(form.get('split_seed')).toBe('0');
    expect(form.get('keep_valid_rows')).toBe('false');
  });

  it('sends the chosen split and the choice to keep the valid rows', async () => {
    document.cookie = 'csrftoken=abc; path=/';
    const file = await nodeFile('caps.csv', 'question,answer\nq,a\n');
    const calls = mockFetch({ 'POST /api/datasets/': [201, { id: 9, status: 'uploaded' }] });
    await uploadDataset({
      file,
      name: 'caps',
      inputSchema: {},
      outputSchema: {},
      columnMapping: {},
      testFraction: 0.3,
      splitSeed: 7,
      keepValidRows: true,
    });
    const form = calls[0]!.body as FormData;
    expect(form.get('test_fraction')).toBe('0.3');
    expect(form.get('split_seed')).toBe('7');
    expect(form.get('keep_valid_rows')).toBe('true');
  });
});
