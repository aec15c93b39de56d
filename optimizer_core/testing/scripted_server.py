"""A local OpenAI-compatible server with scripted answers, for tests, demos and benchmarks.

It speaks enough of the OpenAI HTTP API for litellm's ``openai/`` provider:
``POST /v1/chat/completions``, ``POST /v1/embeddings`` and ``GET /v1/models``.
Answers come from a responder function (by default a schema-valid filler), and
are generated as a model generates them: token by token (``token_latency``
seconds each), until the answer ends or the request's ``max_tokens`` (else the
context, ``context_tokens``) is reached, with ``finish_reason`` "length" then. A
responder that returns an endless iterator of tokens (`runaway_responder`) is a
model that never stops writing. Faults can be injected
(`ScriptedServer.fail_next`, `ScriptedServer.stall_next`; an error that echoes
the caller's API key, a request that is never answered)
and `ScriptedServer.stats` shows how many requests arrived and how many were in
flight at once.

Run it from the command line::

    python -m optimizer_core.testing.scripted_server --port 0 --latency 0.1 \
        --responder my_module:my_responder

The first line on stdout is the base URL (``http://127.0.0.1:43121/v1``); it
serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import contextlib
import dataclasses
import importlib
import inspect
import itertools
import json
import math
import signal
import struct
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from types import TracebackType
from typing import Any

from aiohttp import web

from optimizer_core.language_models.synthetic import hashed_bag_of_words, schema_filler

__all__ = [
    "ScriptedServer",
    "ServerStats",
    "default_responder",
    "runaway_responder",
    "schema_filler",
]

Responder = Callable[[dict[str, Any]], "dict[str, Any] | str | Iterable[str] | Awaitable[Any]"]
Embedder = Callable[[list[str]], list[list[float]]]

DEFAULT_EMBEDDING_DIM = 64
_MAX_LOGGED_REQUESTS = 1_000


def default_responder(request: dict[str, Any]) -> dict[str, Any] | str:
    """Fill the request's ``response_format`` JSON schema, or answer ``"ok"`` without one.

    Args:
        request: the parsed JSON body of a chat completion request.
    """
    response_format = request.get("response_format")
    if isinstance(response_format, dict):
        json_schema = response_format.get("json_schema")
        if isinstance(json_schema, dict) and isinstance(json_schema.get("schema"), dict):
            filled = schema_filler(json_schema["schema"])
            return filled if isinstance(filled, dict) else {"value": filled}
        if response_format.get("type") == "json_object":
            return {}
    return "ok"


def runaway_responder(request: dict[str, Any]) -> Iterator[str]:
    """A model that never stops: it opens the answer's first string and repeats ``"0.1."``.

    With a JSON schema in ``response_format`` the answer begins
    ``{"<first string property>": "`` (what a small model in its "thinking" field
    writes, ``2.1.0.0.0.1.1.1...``), without one it is only the repetition. Each item
    is one token; the iterator never ends, so the server stops it at the request's
    ``max_tokens`` (or the context's end), with ``finish_reason`` "length".
    """
    schema = _requested_schema(request)
    if schema is not None:
        properties = schema.get("properties") or {}
        first = next(
            (key for key, value in properties.items() if (value or {}).get("type") == "string"),
            next(iter(properties), "value"),
        )
        yield "{" + json.dumps(first) + ': "'
    while True:
        yield "0.1."


def _requested_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    response_format = request.get("response_format")
    if not isinstance(response_format, dict):
        return None
    json_schema = response_format.get("json_schema")
    if isinstance(json_schema, dict) and isinstance(json_schema.get("schema"), dict):
        return dict(json_schema["schema"])
    if isinstance(response_format.get("schema"), dict):  # llama.cpp's json_object form
        return dict(response_format["schema"])
    return None


def default_embedder(texts: list[str]) -> list[list[float]]:
    """The hashed bag-of-words embedding `FakeEmbeddingModel` uses, 64 dimensions."""
    return [hashed_bag_of_words(text, DEFAULT_EMBEDDING_DIM) for text in texts]


_CHARS_PER_TOKEN = 4


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // _CHARS_PER_TOKEN)


@dataclasses.dataclass
class ServerStats:
    """What the server has seen since it started (or since `reset`).

    Attributes:
        chat_requests: chat completion requests received, failed ones included.
        embedding_requests: embedding requests received, failed ones included.
        in_flight: requests being handled now.
        max_in_flight: the most requests handled at once.
        completion_tokens: tokens generated in chat answers.
        finish_reasons: answers per ``finish_reason`` (``"stop"``, ``"length"``).
        requests: the parsed bodies of the last 1,000 POST requests, oldest first.
        headers: the headers of the same requests, in the same order (as sent, so a
            test can see which key, if any, a request carried).
    """

    chat_requests: int = 0
    embedding_requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    completion_tokens: int = 0
    finish_reasons: collections.Counter[str] = dataclasses.field(
        default_factory=collections.Counter
    )
    requests: collections.deque[dict[str, Any]] = dataclasses.field(
        default_factory=lambda: collections.deque(maxlen=_MAX_LOGGED_REQUESTS)
    )
    headers: collections.deque[dict[str, str]] = dataclasses.field(
        default_factory=lambda: collections.deque(maxlen=_MAX_LOGGED_REQUESTS)
    )

    def reset(self) -> None:
        """Zero the counters and forget the logged requests."""
        self.chat_requests = 0
        self.embedding_requests = 0
        self.max_in_flight = self.in_flight
        self.completion_tokens = 0
        self.finish_reasons.clear()
        self.requests.clear()
        self.headers.clear()


@dataclasses.dataclass
class _Fault:
    status: int
    retry_after: float | None
    body: str | None
    echo_key: bool = False
    content_type: str = "application/json"
    location: str | None = None


class ScriptedServer:
    """An OpenAI-compatible HTTP server whose answers a Python function writes.

    Use it as ``async with ScriptedServer(...) as server:`` inside a running
    event loop, or ``with ScriptedServer(...) as server:`` (or
    `start_in_thread` / `stop`) to run it in a background thread with its own
    loop.

    Args:
        responder: ``fn(request_json) -> dict | str | iterable of str`` (or an
            awaitable of one). A dict is sent as JSON content, a string as is
            (counted as one token per 4 characters); an iterable's items are tokens,
            taken until it ends or the bound is reached (it may be endless, see
            `runaway_responder`). Default: `default_responder` (a schema-valid
            object, or ``"ok"``).
        embedder: ``fn(texts) -> vectors`` for ``/v1/embeddings``. Default: the
            64-dimensional hashed bag-of-words of `FakeEmbeddingModel`.
        latency: seconds each request waits (``asyncio.sleep``) before it is
            answered, so concurrency shows in ``stats.max_in_flight``. Default 0.
        token_latency: seconds each generated token takes, on top of ``latency``
            (default 0): a runaway answer without ``max_tokens`` then takes
            ``context_tokens`` times this.
        context_tokens: the context a request's prompt and answer share; without
            ``max_tokens`` an answer stops where it is full (default 4096, the
            bundled server's ``n_ctx``).
        host: interface to bind (default ``"127.0.0.1"``).
        port: port to bind; 0 (default) picks a free one.

    Example:
        ```python
        async with ScriptedServer(lambda request: {"answer": "Paris"}) as server:
            lm = LanguageModel("openai/scripted", api_base=server.base_url)
            await lm([{"role": "user", "content": "Capital of France?"}], schema=schema)
        ```
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        embedder: Embedder | None = None,
        latency: float = 0.0,
        token_latency: float = 0.0,
        context_tokens: int = 4096,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        if latency < 0:
            raise ValueError(f"`latency` must be >= 0, got {latency}")
        if token_latency < 0:
            raise ValueError(f"`token_latency` must be >= 0, got {token_latency}")
        if not isinstance(context_tokens, int) or context_tokens < 1:
            raise ValueError(f"`context_tokens` must be an int >= 1, got {context_tokens!r}")
        if not 0 <= port <= 65535:
            raise ValueError(f"`port` must be in [0, 65535], got {port}")
        self.responder: Responder = responder or default_responder
        self.embedder: Embedder = embedder or default_embedder
        self.latency = latency
        self.token_latency = token_latency
        self.context_tokens = context_tokens
        self.host = host
        self.port = port
        self.stats = ServerStats()
        self._faults: collections.deque[_Fault] = collections.deque()
        self._stalls: collections.deque[float] = collections.deque()
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._closing: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._thread_loop: asyncio.AbstractEventLoop | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ending in ``/v1``; available once the server runs."""
        if self._runner is None:
            raise RuntimeError("the server is not running: use `async with` or start_in_thread()")
        return f"http://{self.host}:{self.port}/v1"

    # -- fault injection ------------------------------------------------------

    def fail_next(
        self,
        *,
        status: int,
        times: int = 1,
        retry_after: float | None = None,
        body: str | None = None,
        echo_key: bool = False,
        content_type: str = "application/json",
    ) -> None:
        """Answer the next ``times`` POST requests with HTTP ``status``.

        Args:
            status: the HTTP status, e.g. 429, 500, 401.
            times: how many requests fail (default 1).
            retry_after: seconds to send in the ``Retry-After`` header (and
                ``retry-after-ms``), if any.
            body: the response body; default an OpenAI-style error JSON.
            echo_key: the error message quotes the request's key (its
                ``Authorization: Bearer`` credentials) in full, as some providers
                do on a 401; for tests that a key never reaches a log.
            content_type: the body's media type (``"text/html"`` for an HTML page).
        """
        if echo_key and body is not None:
            raise ValueError("give `body` or `echo_key`, not both")
        if not 400 <= status <= 599:
            raise ValueError(f"`status` must be an HTTP error status (400-599), got {status}")
        if times < 1:
            raise ValueError(f"`times` must be >= 1, got {times}")
        for _ in range(times):
            self._faults.append(_Fault(status, retry_after, body, echo_key, content_type))

    def redirect_next(self, location: str, *, status: int = 307, times: int = 1) -> None:
        """Answer the next ``times`` POST requests with a redirect to ``location``."""
        if status not in (301, 302, 303, 307, 308):
            raise ValueError(f"`status` must be a redirect status, got {status}")
        if times < 1:
            raise ValueError(f"`times` must be >= 1, got {times}")
        for _ in range(times):
            self._faults.append(_Fault(status, None, None, location=location))

    def stall_next(self, seconds: float, times: int = 1) -> None:
        """Make the next ``times`` POST requests wait ``seconds`` before answering.

        Use it to trigger client-side timeouts. ``math.inf`` makes a provider that
        accepts the request and never answers. Stalls end early when the server stops.
        """
        if seconds < 0:
            raise ValueError(f"`seconds` must be >= 0, got {seconds}")
        if times < 1:
            raise ValueError(f"`times` must be >= 1, got {times}")
        for _ in range(times):
            self._stalls.append(seconds)

    # -- running in the current loop -----------------------------------------

    async def start(self) -> ScriptedServer:
        """Bind and serve in the running event loop."""
        if self._runner is not None:
            raise RuntimeError("the server is already running")
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/chat/completions", self._chat)
        app.router.add_post("/v1/embeddings", self._embeddings)
        app.router.add_post("/embeddings", self._embeddings)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/models", self._models)
        self._closing = asyncio.Event()
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        return self

    async def close(self) -> None:
        """Stop serving; stalled requests are released first."""
        if self._closing is not None:
            self._closing.set()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> ScriptedServer:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- running in a background thread --------------------------------------

    def start_in_thread(self) -> ScriptedServer:
        """Serve from a background thread with its own event loop; returns once bound."""
        if self._thread is not None:
            raise RuntimeError("the server is already running in a thread")
        ready = threading.Event()
        failure: list[BaseException] = []
        loop = asyncio.new_event_loop()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as error:
                failure.append(error)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self.close())
                loop.close()

        self._thread_loop = loop
        self._thread = threading.Thread(target=serve, name="ScriptedServer", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread.join()
            self._thread = None
            self._thread_loop = None
            raise failure[0]
        return self

    def stop(self) -> None:
        """Stop the background thread started by `start_in_thread`."""
        thread, loop = self._thread, self._thread_loop
        if thread is None or loop is None:
            return
        if self._closing is not None:
            loop.call_soon_threadsafe(self._closing.set)
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        self._thread = None
        self._thread_loop = None

    def __enter__(self) -> ScriptedServer:
        return self.start_in_thread()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- handlers ------------------------------------------------------------

    async def _sleep(self, seconds: float) -> None:
        if seconds <= 0 or self._closing is None:
            return
        if math.isinf(seconds):
            await self._closing.wait()
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closing.wait(), timeout=seconds)

    async def _read_json(self, request: web.Request) -> dict[str, Any] | web.Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "the request body is not JSON", "invalid_request_error")
        if not isinstance(body, dict):
            return _error(400, "the request body must be a JSON object", "invalid_request_error")
        return body

    async def _before_answer(self, request: web.Request) -> web.Response | None:
        """Latency, stalls and injected faults.

        The stall and the fault are taken when the request arrives, so they go
        to requests in arrival order whatever the latency.
        """
        stall = self._stalls.popleft() if self._stalls else 0.0
        fault = self._faults.popleft() if self._faults else None
        await self._sleep(self.latency + stall)
        if fault is None:
            return None
        headers: dict[str, str] = {}
        if fault.retry_after is not None:
            headers["Retry-After"] = _format_seconds(fault.retry_after)
            headers["retry-after-ms"] = _format_seconds(fault.retry_after * 1000)
        if fault.location is not None:
            return web.Response(status=fault.status, headers={"Location": fault.location})
        if fault.echo_key:
            credentials = request.headers.get("Authorization", "")
            key = credentials.removeprefix("Bearer ").strip()
            message = (
                f"Incorrect API key provided: {key}. You can find your API key at "
                "https://platform.example.com/account/api-keys."
            )
            return _error(fault.status, message, "invalid_request_error", headers)
        if fault.body is not None:
            return web.Response(
                status=fault.status,
                text=fault.body,
                content_type=fault.content_type,
                headers=headers,
            )
        return _error(fault.status, f"injected HTTP {fault.status}", "injected", headers)

    def _enter(self) -> None:
        self.stats.in_flight += 1
        self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)

    def _leave(self) -> None:
        self.stats.in_flight -= 1

    async def _chat(self, request: web.Request) -> web.Response:
        self._enter()
        try:
            body = await self._read_json(request)
            if isinstance(body, web.Response):
                return body
            self.stats.chat_requests += 1
            self.stats.requests.append(body)
            self.stats.headers.append(dict(request.headers))
            failure = await self._before_answer(request)
            if failure is not None:
                return failure
            if body.get("stream"):
                return _error(400, "streaming is not supported", "invalid_request_error")
            try:
                answer: Any = self.responder(body)
                if inspect.isawaitable(answer):
                    answer = await answer
                prompt = "".join(
                    str(message.get("content", "")) for message in body.get("messages", ()) or ()
                )
                prompt_tokens = _estimate_tokens(prompt)
                requested = body.get("max_tokens", body.get("max_completion_tokens"))
                limit = (
                    requested
                    if isinstance(requested, int) and requested > 0
                    else max(1, self.context_tokens - prompt_tokens)
                )
                content, completion_tokens, finish_reason = _generate(answer, limit)
            except Exception as error:
                return _error(500, f"responder failed: {error!r}", "server_error")
            await self._sleep(self.token_latency * completion_tokens)
            self.stats.completion_tokens += completion_tokens
            self.stats.finish_reasons[finish_reason] += 1
            return web.json_response(
                {
                    "id": f"chatcmpl-scripted-{next(self._ids)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": str(body.get("model", "scripted")),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": finish_reason,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                }
            )
        finally:
            self._leave()

    async def _embeddings(self, request: web.Request) -> web.Response:
        self._enter()
        try:
            body = await self._read_json(request)
            if isinstance(body, web.Response):
                return body
            self.stats.embedding_requests += 1
            self.stats.requests.append(body)
            self.stats.headers.append(dict(request.headers))
            failure = await self._before_answer(request)
            if failure is not None:
                return failure
            raw = body.get("input")
            texts = [raw] if isinstance(raw, str) else raw
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                return _error(400, "`input` must be a string or a list of strings", "invalid")
            try:
                vectors = self.embedder(texts)
            except Exception as error:
                return _error(500, f"embedder failed: {error!r}", "server_error")
            as_base64 = body.get("encoding_format") == "base64"
            tokens = sum(_estimate_tokens(text) for text in texts)
            return web.json_response(
                {
                    "object": "list",
                    "model": str(body.get("model", "scripted")),
                    "data": [
                        {
                            "object": "embedding",
                            "index": index,
                            "embedding": _pack(vector) if as_base64 else vector,
                        }
                        for index, vector in enumerate(vectors)
                    ],
                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                }
            )
        finally:
            self._leave()

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": "scripted", "object": "model", "owned_by": "optimizer_core"}],
            }
        )


def _generate(answer: Any, limit: int) -> tuple[str, int, str]:
    """``(text, tokens, finish_reason)`` of an answer generated up to ``limit`` tokens."""
    if isinstance(answer, dict):
        answer = json.dumps(answer)
    if isinstance(answer, str):
        tokens = _estimate_tokens(answer)
        if tokens <= limit:
            return answer, tokens, "stop"
        return answer[: limit * _CHARS_PER_TOKEN], limit, "length"
    if not isinstance(answer, Iterable):
        raise TypeError(f"an answer must be a dict, a str or tokens, got {type(answer).__name__}")
    pieces: list[str] = []
    for token in answer:
        if len(pieces) == limit:
            return "".join(pieces), limit, "length"
        pieces.append(str(token))
    return "".join(pieces), len(pieces), "stop"


def _pack(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:.3f}"


def _error(
    status: int, message: str, kind: str, headers: dict[str, str] | None = None
) -> web.Response:
    return web.json_response(
        {"error": {"message": message, "type": kind, "param": None, "code": str(status)}},
        status=status,
        headers=headers,
    )


def _load(spec: str) -> Any:
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise SystemExit(f"expected module:function, got {spec!r}")
    target: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    return target


async def _serve_until_signalled(server: ScriptedServer) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with server:
        print(server.base_url, flush=True)
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: serve until SIGTERM / SIGINT."""
    parser = argparse.ArgumentParser(
        prog="python -m optimizer_core.testing.scripted_server",
        description="A local OpenAI-compatible server with scripted answers.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port; 0 picks a free one")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per request")
    parser.add_argument("--token-latency", type=float, default=0.0, help="seconds per token")
    parser.add_argument("--responder", help="module:function answering chat requests")
    parser.add_argument("--embedder", help="module:function embedding a list of texts")
    args = parser.parse_args(argv)
    server = ScriptedServer(
        _load(args.responder) if args.responder else None,
        embedder=_load(args.embedder) if args.embedder else None,
        latency=args.latency,
        token_latency=args.token_latency,
        host=args.host,
        port=args.port,
    )
    asyncio.run(_serve_until_signalled(server))


if __name__ == "__main__":
    main()
