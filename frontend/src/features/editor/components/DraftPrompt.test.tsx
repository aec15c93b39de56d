import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { starterGraph } from '../model/defaults';
import type { Draft } from '../model/draft';
import { DraftPrompt } from './DraftPrompt';

const draft = (baseVersion: number | null): Draft => ({
  programId: baseVersion === null ? null : 7,
  baseVersion,
  savedAt: Date.now(),
  graph: starterGraph(),
});

describe('DraftPrompt', () => {
  it('offers to restore or discard the kept changes', async () => {
    const user = userEvent.setup();
    const onRestore = vi.fn();
    const onDiscard = vi.fn();
    render(
      <DraftPrompt draft={draft(3)} version={3} onRestore={onRestore} onDiscard={onDiscard} />,
    );
    const prompt = screen.getByRole('region', { name: 'Unsaved draft' });
    expect(prompt).toHaveTextContent(/Unsaved changes to this program from today at/);
    expect(prompt).not.toHaveTextContent('made on version');
    await user.click(screen.getByRole('button', { name: 'Restore draft' }));
    expect(onRestore).toHaveBeenCalledOnce();
    await user.click(screen.getByRole('button', { name: 'Discard' }));
    expect(onDiscard).toHaveBeenCalledOnce();
  });

  it('says when the changes were made on an older version than the one shown', () => {
    render(<DraftPrompt draft={draft(2)} version={3} onRestore={vi.fn()} onDiscard={vi.fn()} />);
    expect(screen.getByRole('region', { name: 'Unsaved draft' })).toHaveTextContent(
      'They were made on version 2; the canvas shows version 3.',
    );
  });
});
