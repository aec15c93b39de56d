"""A counting, translating proxy in front of llama-cpp-python's server (benchmark only).

Both libraries of the quality benchmark talk to the same bundled model through
this proxy, so their LM calls and tokens are counted the same way, on the wire:

- ``POST /v1/chat/completions`` is forwarded; the answer's ``usage`` is added up.
  A ``response_format`` of type ``json_schema`` (what the reference library sends
  for ``openai/`` models, and what llama-cpp-python 0.3.x refuses) is rewritten
  to ``{"type": "json_object", "schema": ...}``, the form that server turns into
  a grammar, so both libraries get the same constrained decoding. A request
  without ``max_tokens`` gets ``--max-tokens`` (a 135M model can ramble until the
  context is full).
- ``POST /v1/embeddings`` is answered locally with the bundled MiniLM (the
  reference library's OMEGA needs an OpenAI-style embedding endpoint).
- ``GET /v1/models`` is forwarded.

The workload tells the proxy which phase it is in (``POST /bench/mode``,
``{"mode": "fit" | "eval"}``) and reads the counters (``GET /bench/counters``):

- in ``"fit"`` (the default) requests go as sent and count as training calls, so
  both libraries train at their own default temperature;
- in ``"eval"`` every request is pinned to temperature 0 and seed 0 (the
  reference library's ``evaluate`` / ``predict`` cannot pin it; ours can, but both
  go through the same path here) and counts as an evaluation call. A request
  already answered in ``"eval"`` is answered again from memory: at temperature 0
  the server would give the same answer, and a program that did not change
  (an optimizer that kept its start) is re-evaluated for free. Counted as a call
  all the same, and as a cache hit.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Embedder = Callable[[list[str]], list[list[float]]]


class Counters:
    """What went through the proxy."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.by_mode: dict[str, int] = {"fit": 0, "eval": 0}
            self.tokens_by_mode: dict[str, list[int]] = {"fit": [0, 0], "eval": [0, 0]}
            self.eval_cache_hits = 0
            self.chat_calls = 0
            self.chat_errors = 0
            self.prompt_tokens = 0
            self.completion_tokens = 0
            self.rewritten = 0
            self.embedding_calls = 0
            self.embedded_texts = 0
            self.busy_s = 0.0
            self.first_request: dict[str, Any] | None = None

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {
                "chat_calls": self.chat_calls,
                "fit_calls": self.by_mode["fit"],
                "eval_calls": self.by_mode["eval"],
                "eval_cache_hits": self.eval_cache_hits,
                "fit_tokens": list(self.tokens_by_mode["fit"]),
                "eval_tokens": list(self.tokens_by_mode["eval"]),
                "chat_errors": self.chat_errors,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "json_schema_rewritten": self.rewritten,
                "embedding_calls": self.embedding_calls,
                "embedded_texts": self.embedded_texts,
                "server_busy_s": round(self.busy_s, 3),
                "first_request": self.first_request,
            }


class Proxy:
    """Serve the proxy on ``127.0.0.1:<free port>`` in a background thread."""

    def __init__(self, upstream: str, *, max_tokens: int, embedder: Embedder | None) -> None:
        parsed = urllib.parse.urlparse(upstream)
        self.upstream_host = parsed.hostname or "127.0.0.1"
        self.upstream_port = parsed.port or 80
        self.max_tokens = max_tokens
        self.embedder = embedder
        self.counters = Counters()
        self.mode = "fit"
        self.eval_cache: dict[str, tuple[int, bytes]] = {}
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def _reply(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.startswith("/bench/counters"):
                    self._reply(200, json.dumps(proxy.counters.snapshot()).encode())
                    return
                status, body = proxy._forward("GET", self.path, None)
                self._reply(status, body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.startswith("/bench/mode"):
                    self._reply(*proxy._set_mode(raw))
                    return
                if self.path.endswith("/embeddings"):
                    self._reply(*proxy._embeddings(raw))
                    return
                status, body = proxy._chat(raw) if "chat" in self.path else (404, b"{}")
                self._reply(status, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def root(self) -> str:
        """Where the ``/bench/...`` endpoints are."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def _set_mode(self, raw: bytes) -> tuple[int, bytes]:
        mode = json.loads(raw or b"{}").get("mode")
        if mode not in ("fit", "eval"):
            return 400, b'{"error": "mode must be fit or eval"}'
        self.mode = mode
        return 200, json.dumps({"mode": mode}).encode()

    def start(self) -> Proxy:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _forward(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=900)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def _chat(self, raw: bytes) -> tuple[int, bytes]:
        request = json.loads(raw or b"{}")
        rewritten = False
        response_format = request.get("response_format")
        if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
            schema = (response_format.get("json_schema") or {}).get("schema")
            request["response_format"] = (
                {"type": "json_object", "schema": schema} if schema else {"type": "json_object"}
            )
            rewritten = True
        if not request.get("max_tokens") and not request.get("max_completion_tokens"):
            request["max_tokens"] = self.max_tokens
        mode = self.mode
        key = ""
        cached: tuple[int, bytes] | None = None
        if mode == "eval":
            request["temperature"] = 0.0
            request["seed"] = 0
            key = json.dumps(request, sort_keys=True)
            cached = self.eval_cache.get(key)
        started = time.perf_counter()
        if cached is not None:
            status, body = cached
        else:
            status, body = self._forward(
                "POST", "/v1/chat/completions", json.dumps(request).encode()
            )
            if mode == "eval" and status == 200:
                self.eval_cache[key] = (status, body)
        busy = time.perf_counter() - started
        usage: dict[str, Any] = {}
        if status == 200:
            try:
                usage = json.loads(body).get("usage") or {}
            except ValueError:
                usage = {}
        with self.counters.lock:
            if self.counters.first_request is None:
                self.counters.first_request = request
            self.counters.chat_calls += 1
            self.counters.by_mode[mode] += 1
            self.counters.eval_cache_hits += cached is not None
            self.counters.tokens_by_mode[mode][0] += int(usage.get("prompt_tokens") or 0)
            self.counters.tokens_by_mode[mode][1] += int(usage.get("completion_tokens") or 0)
            self.counters.chat_errors += status != 200
            self.counters.rewritten += rewritten
            self.counters.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.counters.completion_tokens += int(usage.get("completion_tokens") or 0)
            self.counters.busy_s += busy
        return status, body

    def _embeddings(self, raw: bytes) -> tuple[int, bytes]:
        if self.embedder is None:
            return 404, b'{"error": "no embedder"}'
        request = json.loads(raw or b"{}")
        texts = request.get("input")
        if isinstance(texts, str):
            texts = [texts]
        vectors = self.embedder(list(texts or []))
        with self.counters.lock:
            self.counters.embedding_calls += 1
            self.counters.embedded_texts += len(vectors)
        body = {
            "object": "list",
            "model": request.get("model", "minilm"),
            "data": [
                {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
            ],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }
        return 200, json.dumps(body).encode()
