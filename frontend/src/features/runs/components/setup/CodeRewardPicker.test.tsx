import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { Route } from 'react-router';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import { NO_CODE, type CodeChoice } from '../../model/codeRewards';
import { CodeRewardPicker } from './CodeRewardPicker';

stubApiPerTest();

const page = (results: unknown[]) => ({
  count: results.length,
  next: null,
  previous: null,
  results,
});
const scorer = (id: number, name: string, kind: string) => ({
  id,
  name,
  kind,
  description: '',
  latest_version: 2,
  version_count: 2,
  run_count: 0,
  created_at: '',
  updated_at: '',
});

function Harness() {
  const [value, setValue] = useState<CodeChoice>(NO_CODE);
  return (
    <>
      <CodeRewardPicker value={value} onChange={setValue} />
      <output aria-label="Chosen">{JSON.stringify(value)}</output>
    </>
  );
}

describe('CodeRewardPicker', () => {
  it('picks a code reward and its version, and a code metric', async () => {
    mockFetch({
      'GET /api/scorers/': [
        200,
        page([scorer(7, 'within 1%', 'reward'), scorer(8, 'words', 'metric')]),
      ],
      'GET /api/scorers/7/versions/': [
        200,
        page([
          { id: 2, number: 2, message: 'tuned', created_at: '', created_by: 'ada' },
          { id: 1, number: 1, message: '', created_at: '', created_by: 'ada' },
        ]),
      ],
    });
    renderRoutes('/', <Route path="/" element={<Harness />} />);
    const reward = await screen.findByLabelText('Reward from your code');
    await screen.findByRole('option', { name: 'within 1%' });
    expect(screen.queryByRole('option', { name: 'words' })).toBeNull(); // a metric is no reward
    await userEvent.selectOptions(reward, 'within 1%');
    await screen.findByRole('option', { name: 'v1' });
    await userEvent.selectOptions(screen.getByLabelText('Its version'), '1');
    await userEvent.click(screen.getByRole('checkbox', { name: /words/ }));
    await waitFor(() =>
      expect(JSON.parse(screen.getByLabelText('Chosen').textContent ?? '')).toEqual({
        reward: { name: 'within 1%', version: 1 },
        metrics: [{ name: 'words', version: null }],
      }),
    );
  });

  it('points to the library when there is no code reward yet', async () => {
    mockFetch({ 'GET /api/scorers/': [200, page([])] });
    renderRoutes('/', <Route path="/" element={<Harness />} />);
    expect(await screen.findByRole('link', { name: 'Rewards' })).toHaveAttribute(
      'href',
      '/rewards',
    );
  });
});
