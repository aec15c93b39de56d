import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket } from '@/test/fakeSocket';
import { followStream, type StreamEvent } from './eventStream';

const event = (seq: number): StreamEvent & { run: number } => ({
  type: 'event',
  run: 7,
  seq,
  kind: 'batch',
  payload: {},
});

afterEach(() => {
  vi.useRealTimers();
  FakeSocket.reset();
});

describe('followStream', () => {
  it('reconnects after a drop with the last seq seen, and never repeats an event', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    let replayed = 0;
    const stop = followStream(
      'runs',
      7,
      { onEvent: (e) => seen.push(e.seq), onReplayed: () => (replayed += 1) },
      { makeSocket: FakeSocket.make },
    );
    const [first] = FakeSocket.opened;
    expect(first!.url).toMatch(/\/ws\/runs\/7\/\?after=0$/);
    expect(first!.url).not.toMatch(/token/); // the session cookie signs in, never the URL
    first!.onopen?.();
    first!.deliver(event(1));
    first!.deliver(event(2));
    first!.deliver({ type: 'replayed', last_seq: 2 });
    first!.onclose?.({ code: 1006 });
    vi.advanceTimersByTime(5000);
    const second = FakeSocket.opened[1]!;
    expect(second.url).toMatch(/\?after=2$/);
    second.deliver(event(2)); // a replay overlapping what was already seen
    second.deliver(event(3));
    expect(seen).toEqual([1, 2, 3]);
    expect(replayed).toBe(1);
    stop();
    expect(second.closed).toBe(true);
  });

  it('stops on "not found" instead of retrying', () => {
    vi.useFakeTimers();
    const statuses: string[] = [];
    followStream(
      'batches',
      9,
      { onEvent: () => {}, onStatus: (s) => statuses.push(s) },
      { makeSocket: FakeSocket.make },
    );
    expect(FakeSocket.opened[0]!.url).toMatch(/\/ws\/batches\/9\/\?after=0$/);
    FakeSocket.opened[0]!.onclose?.({ code: 4404 });
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.opened).toHaveLength(1);
    expect(statuses).toEqual(['connecting', 'not-found']);
  });
});
