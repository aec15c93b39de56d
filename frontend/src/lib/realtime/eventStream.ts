/**
 * The one websocket module: follows an event stream, `ws/<stream>/<id>/?after=<seq>`
 * (`runs`: a run's events; `batches`: a batch prediction's progress).
 *
 * The server replays the stored events after `seq`, sends `{"type": "replayed"}`, then
 * streams live ones, each once and in order. On a dropped connection this reconnects
 * with the last seq seen, so nothing is missed or repeated.
 *
 * The browser is signed in by its session cookie, which the handshake carries: the URL
 * holds no credentials (URLs end up in proxy and access logs). Scripts without a session
 * send `{"type": "auth", "token": ...}` as their first message instead.
 */

/** The streams the server serves (`studio.realtime.streams`). */
export type EventStreamName = 'runs' | 'batches';

/** An event of any stream: its object's id is under the stream's key (`run`, `batch`). */
export type StreamEvent = {
  type: 'event';
  seq: number;
  kind: string;
  payload: Record<string, unknown>;
  ts?: number | null;
};

type StreamMessage = StreamEvent | { type: 'replayed'; last_seq: number };

export type StreamStatus = 'connecting' | 'open' | 'closed' | 'forbidden' | 'not-found';

export type StreamHandlers = {
  onEvent: (event: StreamEvent) => void;
  onReplayed?: () => void;
  onStatus?: (status: StreamStatus) => void;
};

const CLOSE_FORBIDDEN = 4403;
const CLOSE_NOT_FOUND = 4404;

export function streamSocketUrl(
  stream: EventStreamName,
  id: number,
  after: number,
  origin = globalThis.location,
): string {
  const scheme = origin.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${origin.host}/ws/${stream}/${id}/?after=${after}`;
}

type FollowOptions = { after?: number; makeSocket?: (url: string) => WebSocket };

/**
 * Follow a stream's events (replay, then live; reconnects after the last seq);
 * returns a function that closes the socket for good.
 */
export function followStream(
  stream: EventStreamName,
  id: number,
  handlers: StreamHandlers,
  { after = 0, makeSocket = (url: string) => new WebSocket(url) }: FollowOptions = {},
): () => void {
  let lastSeq = after;
  let socket: WebSocket | null = null;
  let stopped = false;
  let retry = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    handlers.onStatus?.('connecting');
    socket = makeSocket(streamSocketUrl(stream, id, lastSeq));
    socket.onopen = () => {
      retry = 0;
      handlers.onStatus?.('open');
    };
    socket.onmessage = (message: MessageEvent) => {
      const data = JSON.parse(String(message.data)) as StreamMessage;
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
