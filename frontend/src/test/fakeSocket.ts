/** A WebSocket stand-in a test drives: open it, deliver messages, drop the connection. */
export class FakeSocket {
  /** Every socket made since the last `reset()`, oldest first. */
  static opened: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  /** The server sends `message`. */
  deliver(message: object) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  close() {
    this.closed = true;
  }
  static reset() {
    FakeSocket.opened = [];
  }
  /** A `makeSocket` for `followStream`. */
  static make = (url: string) => new FakeSocket(url) as unknown as WebSocket;
}
