"""A real worker process's log keeps no provider key, though Celery sets up its own handlers.

The embedded stack (daphne and a Celery worker as subprocesses, SQLite) trains
a run against a provider that echoes the key in its 401; the worker's and the
web server's whole output must not hold the key.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from tests.studio.realtime.live_stack import LiveStack, follow_run
from tests.studio.runs.factories import COMPILE_CONFIG, program_document

pytestmark = [pytest.mark.slow, pytest.mark.litellm, pytest.mark.timeout(240)]

KEY = "studio-live-key-7Qz2Wm9Xc4Vb8Nn1"  # no known key shape: only the registry catches it


def schema(field: str) -> dict[str, Any]:
    return {"type": "object", "properties": {field: {"type": "string"}}}


async def start_run_with_key(port: int, token: str, api_base: str) -> int:
    base = f"http://127.0.0.1:{port}/api"
    async with aiohttp.ClientSession(headers={"Authorization": f"Token {token}"}) as http:
        rows = "".join(json.dumps({"query": f"q{i}", "answer": f"a{i}"}) + "\n" for i in range(20))
        form = aiohttp.FormData()
        form.add_field("file", rows.encode(), filename="rows.jsonl", content_type="text/plain")
        form.add_field("name", "rows")
        form.add_field("input_schema", json.dumps(schema("query")))
        form.add_field("output_schema", json.dumps(schema("answer")))
        async with http.post(f"{base}/datasets/", data=form) as response:
            assert response.status == 201, await response.text()
            dataset = await response.json()
        for _ in range(150):
            async with http.get(f"{base}/datasets/{dataset['id']}/") as response:
                dataset = await response.json()
            if dataset["status"] in ("valid", "invalid"):
                break
            await asyncio.sleep(0.2)
        assert dataset["status"] == "valid", dataset
        body = {"name": "echoing", "model": "openai/scripted", "api_base": api_base, "api_key": KEY}
        async with http.post(f"{base}/providers/", json=body) as response:
            assert response.status == 201, await response.text()
            provider = await response.json()
        document = await asyncio.to_thread(program_document)
        async with http.post(
            f"{base}/programs/", json={"name": "capitals", "document": document}
        ) as response:
            assert response.status == 201, await response.text()
            program = await response.json()
        async with http.get(f"{base}/programs/{program['id']}/versions/") as response:
            version = (await response.json())["results"][0]
        run_body = {
            "program_version": version["id"], "dataset": dataset["id"], "provider": provider["id"],
            "compile_config": COMPILE_CONFIG,
            "fit_config": {"epochs": 1, "batch_size": 8, "evaluations": 1, "seed": 0},
        }  # fmt: skip
        async with http.post(f"{base}/runs/", json=run_body) as response:
            assert response.status == 201, await response.text()
            return int((await response.json())["id"])


async def test_a_worker_process_logs_the_failure_without_the_key(tmp_path):
    stack = LiveStack({"STUDIO_LOG_LEVEL": "DEBUG"}, tmp_path)
    with ScriptedServer() as server, stack.running():
        server.fail_next(status=401, times=10_000, echo_key=True)
        token = stack.create_token()
        try:
            run_id = await start_run_with_key(stack.port, token, server.base_url)
            messages = await follow_run(stack.port, run_id, token)
        except Exception:
            print(stack.logs())
            raise
    assert messages[-1]["payload"]["state"] == "failed", messages[-1]
    assert server.stats.chat_requests > 0
    worker = (tmp_path / "worker.log").read_text(errors="replace")
    web = (tmp_path / "web.log").read_text(errors="replace")
    assert f"run {run_id} failed" in worker and "Traceback" in worker  # it did log the failure
    assert "Incorrect API key provided: ***" in worker
    assert KEY not in worker, "the key is in the worker's log"
    assert KEY not in web, "the key is in the web server's log"
    assert KEY not in json.dumps(messages)
