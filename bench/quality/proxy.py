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
                status, body = proxy._forward("GET", self.path, None)
                self._reply(status, body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
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
        started = time.perf_counter()
        status, body = self._forward("POST", "/v1/chat/completions", json.dumps(request).encode())
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
