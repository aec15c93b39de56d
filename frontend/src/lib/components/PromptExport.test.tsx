import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import type { PromptSource } from '@/lib/api/ops/promptExport';
import { PromptExport } from './PromptExport';

const MESSAGES = [
  { role: 'system', content: 'Answer with the city.\nExamples: Germany -> Berlin' },
  { role: 'user', content: '{{input}}' },
];
const TEXT =
  '### SYSTEM\nAnswer with the city.\nExamples: Germany -> Berlin\n\n### USER\n{{input}}';
const EXPORT = {
  input_placeholder: '{{input}}',
  generators: [
    {
      name: 'answer',
      messages: MESSAGES,
      text: TEXT,
      response_format: { type: 'json_schema' },
      temperature: 0,
    },
  ],
  python: 'import optimizer_core\nprogram = optimizer_core.Program.from_json(...)',
  document: { modules: [] },
};

function renderExport(source: PromptSource) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <PromptExport source={source} onClose={() => {}} />
    </QueryClientProvider>,
  );
}

beforeAll(() => {
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.open = true;
  };
});
afterEach(() => vi.unstubAllGlobals());

describe('PromptExport', () => {
  it("shows a version's messages as JSON or plain text, and copies what it shows", async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const calls = mockFetch({ 'GET /api/programs/5/versions/2/prompt/': [200, EXPORT] });
    renderExport({ kind: 'version', programId: 5, number: 2 });

    const section = await screen.findByRole('region', { name: 'Prompt of answer' });
    const shown = () => within(section).getByLabelText('answer snippet').textContent;
    expect(JSON.parse(shown() ?? '')).toEqual(MESSAGES);
    await user.click(within(section).getByRole('button', { name: 'Copy answer' }));
    expect(writeText).toHaveBeenLastCalledWith(`${JSON.stringify(MESSAGES, null, 2)}\n`);

    await user.click(screen.getByRole('radio', { name: 'Plain text' }));
    expect(shown()).toBe(TEXT);
    await user.click(within(section).getByRole('button', { name: 'Copy answer' }));
    expect(writeText).toHaveBeenLastCalledWith(TEXT);

    expect(screen.getByLabelText('Python snippet')).toHaveTextContent('Program.from_json');
    expect(calls.map((c) => c.url)).toEqual(['/api/programs/5/versions/2/prompt/']);
  });

  it("reads a run's trained prompt and says why when there is none", async () => {
    mockFetch({
      'GET /api/runs/7/prompt/': [
        409,
        { detail: 'run 7 is running: only a succeeded run has a trained prompt' },
      ],
    });
    renderExport({ kind: 'run', runId: 7 });
    expect(await screen.findByRole('alert')).toHaveTextContent('only a succeeded run');
  });
});
