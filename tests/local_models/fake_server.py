"""A tiny OpenAI-compatible server for the supervisor tests (stdlib only).

Usage: python fake_server.py --host H --port P [--delay S] [--never-ready] [--exit-code N]

Other arguments (a ``llama-server`` command line, when it stands in for that
binary) are accepted and ignored.

GET /v1/models answers once ready. POST /v1/chat/completions answers with a
JSON object holding one string per property of ``response_format["schema"]``
(written with a raw newline inside, as llama.cpp's JSON grammar allows), or
``{}`` when the request carries no schema there. Its usage counts a prompt
token per 4 characters of the messages.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Handler(BaseHTTPRequestHandler):
    never_ready = False

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write("fake server: " + format % args + "\n")

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/v1/models" and not self.never_ready:
            self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send(503, {"error": "not ready"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        schema = (body.get("response_format") or {}).get("schema") or {}
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in body["messages"]) // 4
        fields = ", ".join(f'"{name}": "first\nsecond"' for name in schema.get("properties", {}))
        self._send(
            200,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "{" + fields + "}"},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": 7,
                    "total_tokens": prompt_tokens + 7,
                },
            },
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--never-ready", action="store_true")
    parser.add_argument("--exit-code", type=int, default=None)
    args, _ = parser.parse_known_args()
    print(f"fake server starting on {args.host}:{args.port}", flush=True)
    if args.exit_code is not None:
        print("fake server: failing on purpose", flush=True)
        sys.exit(args.exit_code)
    time.sleep(args.delay)
    Handler.never_ready = args.never_ready
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
