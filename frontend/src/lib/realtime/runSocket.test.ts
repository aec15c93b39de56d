import { afterEach, describe, expect, it, vi } from 'vitest';
import { followRun, type RunEventMessage } from './runSocket';

/** A WebSocket stand-in the test drives: open, deliver messages, drop the connection. */
class FakeSocket {
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {}
  send(message: object) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  close() {
    this.closed = true;
  }
}

const event = (seq: number): RunEventMessage => ({
  type: 'event',
  run: 7,
  seq,
  kind: 'batch',
  payload: {},
});

afterEach(() => vi.useRealTimers());

describe('followRun', () => {
  it('reconnects after a drop with the last seq seen, and never repeats an event', () => {
    vi.useFakeTimers();
    const sockets: FakeSocket[] = [];
    const seen: number[] = [];
    let replayed = 0;
    const stop = followRun(
      7,
      { onEvent: (e) => seen.push(e.seq), onReplayed: () => (replayed += 1) },
      {
        makeSocket: (url) => {
          const socket = new FakeSocket(url);
          sockets.push(socket);
          return socket as unknown as WebSocket;
        },
      },
    );
    expect(sockets[0]!.url).toMatch(/\/ws\/runs\/7\/\?after=0$/);
    expect(sockets[0]!.url).not.toMatch(/token/); // the session cookie signs in, never the URL
    sockets[0]!.onopen?.();
    sockets[0]!.send(event(1));
    sockets[0]!.send(event(2));
    sockets[0]!.send({ type: 'replayed', last_seq: 2 });
    sockets[0]!.onclose?.({ code: 1006 });
    vi.advanceTimersByTime(5000);
    expect(sockets[1]!.url).toMatch(/\?after=2$/);
    sockets[1]!.send(event(2)); // a replay overlapping what was already seen
    sockets[1]!.send(event(3));
    expect(seen).toEqual([1, 2, 3]);
    expect(replayed).toBe(1);
    stop();
    expect(sockets[1]!.closed).toBe(true);
  });

  it('stops on "not found" instead of retrying', () => {
    vi.useFakeTimers();
    const sockets: FakeSocket[] = [];
    const statuses: string[] = [];
    followRun(
      9,
      { onEvent: () => {}, onStatus: (s) => statuses.push(s) },
      {
        makeSocket: (url) => {
          const socket = new FakeSocket(url);
          sockets.push(socket);
          return socket as unknown as WebSocket;
        },
      },
    );
    sockets[0]!.onclose?.({ code: 4404 });
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(statuses).toEqual(['connecting', 'not-found']);
  });
});
