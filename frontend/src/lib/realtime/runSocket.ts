/**
 * The one websocket module: follows `ws/runs/<id>/?after=<seq>`.
 *
 * The server replays the stored events after `seq`, sends `{"type": "replayed"}`, then
 * streams live ones, each once and in order. On a dropped connection this reconnects
 * with the last seq seen, so nothing is missed or repeated.
 *
 * The browser is signed in by its session cookie, which the handshake carries: the URL
 * holds no credentials (URLs end up in proxy and access logs). Scripts without a session
 * send `{"type": "auth", "token": ...}` as their first message instead.
 */
export type RunEventMessage = {
  type: 'event';
  run: number;
  seq: number;
  kind: string;
  payload: Record<string, unknown>;
  ts?: number | null;
};
export type RunSocketMessage = RunEventMessage | { type: 'replayed'; last_seq: number };

export type RunSocketStatus = 'connecting' | 'open' | 'closed' | 'forbidden' | 'not-found';

export type RunSocketHandlers = {
  onEvent: (event: RunEventMessage) => void;
  onReplayed?: () => void;
  onStatus?: (status: RunSocketStatus) => void;
};

const CLOSE_FORBIDDEN = 4403;
const CLOSE_NOT_FOUND = 4404;

export function runSocketUrl(runId: number, after: number, origin = globalThis.location): string {
  const scheme = origin.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${origin.host}/ws/runs/${runId}/?after=${after}`;
}

/** Follow a run's events; returns a function that closes the socket for good. */
export function followRun(
  runId: number,
  handlers: RunSocketHandlers,
  { after = 0, makeSocket = (url: string) => new WebSocket(url) } = {},
): () => void {
  let lastSeq = after;
  let socket: WebSocket | null = null;
  let stopped = false;
  let retry = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    handlers.onStatus?.('connecting');
    socket = makeSocket(runSocketUrl(runId, lastSeq));
    socket.onopen = () => {
      retry = 0;
      handlers.onStatus?.('open');
    };
    socket.onmessage = (message: MessageEvent) => {
      const data = JSON.parse(String(message.data)) as RunSocketMessage;
      if (data.type === 'replayed') handlers.onReplayed?.();
      else if (data.type === 'event' && data.seq > lastSeq) {
        lastSeq = data.seq;
        handlers.onEvent(data);
      }
    };
    socket.onclose = (close: CloseEvent) => {
      if (stopped) return;
      if (close.code === CLOSE_FORBIDDEN) return handlers.onStatus?.('forbidden');
      if (close.code === CLOSE_NOT_FOUND) return handlers.onStatus?.('not-found');
      handlers.onStatus?.('closed');
      retry += 1;
      timer = setTimeout(connect, Math.min(10_000, 500 * 2 ** Math.min(retry, 5)));
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close();
  };
}
