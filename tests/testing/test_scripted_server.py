"""ScriptedServer: the OpenAI-compatible answers, fault injection, threads and the CLI."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from optimizer_core.language_models.synthetic import hashed_bag_of_words
from optimizer_core.testing.scripted_server import ScriptedServer, schema_filler

REPOSITORY = Path(__file__).resolve().parents[2]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "kind": {"$ref": "#/$defs/Kind"},
        "scores": {"type": "array", "items": {"type": "number"}},
    },
    "$defs": {"Kind": {"enum": ["city", "country"]}},
}


async def post(server: ScriptedServer, path: str, body: dict[str, Any]) -> aiohttp.ClientResponse:
    async with aiohttp.ClientSession() as session:
        response = await session.post(server.base_url + path, json=body)
        await response.read()
        return response


def chat(schema: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hello there"}]}
    if schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "out", "schema": schema},
        }
    return body


async def test_default_answer_fills_the_requested_schema() -> None:
    async with ScriptedServer() as server:
        response = await post(server, "/chat/completions", chat(SCHEMA))
        payload = await response.json()
    assert response.status == 200
    assert payload["object"] == "chat.completion"
    content = json.loads(payload["choices"][0]["message"]["content"])
    assert content == {"answer": "", "kind": "city", "scores": []}
    assert payload["choices"][0]["finish_reason"] == "stop"
    assert payload["usage"]["prompt_tokens"] == len("hello there") // 4
    assert payload["usage"]["total_tokens"] == (
        payload["usage"]["prompt_tokens"] + payload["usage"]["completion_tokens"]
    )


async def test_without_a_schema_the_answer_is_ok_and_responders_can_be_async() -> None:
    async def responder(request: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return f"echo {request['messages'][-1]['content']}"

    async with ScriptedServer() as plain, ScriptedServer(responder) as echo:
        plain_payload = await (await post(plain, "/chat/completions", chat())).json()
        echo_payload = await (await post(echo, "/chat/completions", chat())).json()
    assert plain_payload["choices"][0]["message"]["content"] == "ok"
    assert echo_payload["choices"][0]["message"]["content"] == "echo hello there"


async def test_injected_failures_come_first_with_retry_after() -> None:
    async with ScriptedServer() as server:
        server.fail_next(status=429, retry_after=1.5, times=2)
        server.fail_next(status=500, body='{"error": {"message": "custom"}}')
        first = await post(server, "/chat/completions", chat())
        second = await post(server, "/chat/completions", chat())
        third = await post(server, "/chat/completions", chat())
        fourth = await post(server, "/chat/completions", chat())
        assert [first.status, second.status, third.status, fourth.status] == [429, 429, 500, 200]
        assert first.headers["Retry-After"] == "1.500"
        assert first.headers["retry-after-ms"] == "1500"
        assert await third.json() == {"error": {"message": "custom"}}
        assert server.stats.chat_requests == 4


async def test_stall_delays_one_request() -> None:
    async with ScriptedServer() as server:
        server.stall_next(0.2)
        started = time.perf_counter()
        await post(server, "/chat/completions", chat())
        stalled = time.perf_counter() - started
        started = time.perf_counter()
        await post(server, "/chat/completions", chat())
        assert stalled >= 0.2 > time.perf_counter() - started


async def test_latency_makes_concurrency_visible() -> None:
    async with ScriptedServer(latency=0.05) as server:
        await asyncio.gather(*(post(server, "/chat/completions", chat()) for _ in range(5)))
        assert server.stats.max_in_flight == 5
        assert server.stats.in_flight == 0
        server.stats.reset()
        assert server.stats.chat_requests == 0 and not server.stats.requests


async def test_embeddings_as_floats_and_base64() -> None:
    async with ScriptedServer() as server:
        floats = await (
            await post(server, "/embeddings", {"model": "e", "input": ["a cat", "a dog"]})
        ).json()
        body = {"model": "e", "input": "a cat", "encoding_format": "base64"}
        packed = await (await post(server, "/embeddings", body)).json()
        async with aiohttp.ClientSession() as session:
            models = await session.get(server.base_url + "/models")
            assert (await models.json())["data"][0]["id"] == "scripted"
        assert server.stats.embedding_requests == 2
    assert [item["index"] for item in floats["data"]] == [0, 1]
    assert floats["data"][0]["embedding"] == hashed_bag_of_words("a cat", 64)
    raw = base64.b64decode(packed["data"][0]["embedding"])
    unpacked = struct.unpack(f"<{len(raw) // 4}f", raw)
    assert unpacked == pytest.approx(hashed_bag_of_words("a cat", 64), abs=1e-6)


async def test_bad_requests_are_refused() -> None:
    async with ScriptedServer() as server:
        response = await post(server, "/embeddings", {"model": "e", "input": [1, 2]})
        assert response.status == 400


def test_runs_in_a_thread_for_synchronous_code() -> None:
    with ScriptedServer(lambda request: {"answer": "threaded"}) as server:
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps(chat()).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            payload = json.load(response)
    assert json.loads(payload["choices"][0]["message"]["content"]) == {"answer": "threaded"}
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url


def test_arguments_are_validated_by_name() -> None:
    with pytest.raises(ValueError, match="`latency`"):
        ScriptedServer(latency=-1)
    server = ScriptedServer()
    with pytest.raises(ValueError, match="`status`"):
        server.fail_next(status=200)
    with pytest.raises(ValueError, match="`times`"):
        server.stall_next(1.0, times=0)


def test_schema_filler_is_exported_for_other_responders() -> None:
    assert schema_filler(SCHEMA) == {"answer": "", "kind": "city", "scores": []}


def test_command_line_prints_the_url_serves_and_stops_on_sigterm() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "optimizer_core.testing.scripted_server",
            "--port",
            "0",
            "--latency",
            "0.01",
            "--responder",
            "optimizer_core.testing.scripted_server:default_responder",
        ],
        cwd=REPOSITORY,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        request = urllib.request.Request(
            url + "/chat/completions",
            data=json.dumps(chat(SCHEMA)).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            payload = json.load(response)
        assert json.loads(payload["choices"][0]["message"]["content"])["kind"] == "city"
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 0, stderr


async def test_an_answer_is_generated_up_to_max_tokens() -> None:
    async with ScriptedServer(lambda request: "x" * 400) as server:
        cut = await (await post(server, "/chat/completions", {**chat(), "max_tokens": 10})).json()
        whole = await (await post(server, "/chat/completions", chat())).json()
    assert cut["choices"][0]["message"]["content"] == "x" * 40
    assert cut["choices"][0]["finish_reason"] == "length"
    assert cut["usage"]["completion_tokens"] == 10
    assert whole["choices"][0]["finish_reason"] == "stop"
    assert whole["usage"]["completion_tokens"] == 100
    assert server.stats.finish_reasons == {"length": 1, "stop": 1}
    assert server.stats.completion_tokens == 110


async def test_a_runaway_responder_writes_until_max_tokens_or_the_context_is_full() -> None:
    from optimizer_core.testing.scripted_server import runaway_responder

    async with ScriptedServer(runaway_responder, context_tokens=500) as server:
        body = {**chat(SCHEMA), "max_tokens": 25}
        bounded = await (await post(server, "/chat/completions", body)).json()
        endless = await (await post(server, "/chat/completions", chat())).json()
    text = bounded["choices"][0]["message"]["content"]
    assert text == '{"answer": "' + "0.1." * 24  # the opening is one token
    assert bounded["usage"]["completion_tokens"] == 25
    assert endless["choices"][0]["finish_reason"] == "length"
    prompt = endless["usage"]["prompt_tokens"]
    assert endless["usage"]["completion_tokens"] == 500 - prompt


async def test_tokens_of_an_iterable_answer_that_ends_are_counted() -> None:
    async with ScriptedServer(lambda request: iter(["a", "b", "c"])) as server:
        payload = await (await post(server, "/chat/completions", chat())).json()
    assert payload["choices"][0]["message"]["content"] == "abc"
    assert payload["choices"][0]["finish_reason"] == "stop"
    assert payload["usage"]["completion_tokens"] == 3
