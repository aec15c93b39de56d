"""The scaled-out deployment against the real services: PostgreSQL, Redis, channels-redis.

A fresh database (``studio_test_<pid>``) and dedicated Redis databases (14 for
the broker, 15 for the channel layer) are created for the test and removed
after it. daphne and two Celery workers, one per queue as in docker/compose.yaml
(``training``, ``short``), run as subprocesses with DATABASE_URL,
CELERY_BROKER_URL and CHANNEL_REDIS_URL set; a run of two epochs goes through
litellm to a scripted server and a websocket client (token auth) must see every
event in order, with no gap in seq, ending in ``succeeded``. While a run waits
on a provider that never answers, a dataset is still validated, and a cancel
through the API ends the run within seconds.

Skipped, with the reason, only when PostgreSQL or Redis cannot be reached
(``.ci/run`` starts both).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from tests.studio.realtime.live_stack import LiveStack, follow_run
from tests.studio.runs.factories import COMPILE_CONFIG, Answer, Query, program_document

pytestmark = [pytest.mark.services, pytest.mark.litellm, pytest.mark.timeout(300)]

PG = os.environ.get("STUDIO_TEST_PG", "postgresql://postgres@127.0.0.1:5432")
REDIS = os.environ.get("STUDIO_TEST_REDIS", "redis://127.0.0.1:6379")
BROKER_DB, LAYER_DB = 14, 15


class ScaledOutStack(LiveStack):
    """The compose file's workers: one consuming "training", one "short"."""

    def _spawn(self, name: str, argv: list[str]) -> None:
        if name != "worker":
            super()._spawn(name, argv)
            return
        super()._spawn("worker", [*argv, "-Q", "training", "-n", "training@%h"])
        super()._spawn("worker-short", [*argv, "-Q", "short", "-n", "short@%h"])

    def logs(self) -> str:
        short = self.workdir / "worker-short.log"
        tail = short.read_text(errors="replace")[-4000:] if short.exists() else ""
        return f"{super().logs()}\n--- worker-short ---\n{tail}"


def _admin_connection():
    import psycopg

    return psycopg.connect(f"{PG}/postgres", autocommit=True, connect_timeout=3)


@pytest.fixture
def services_env() -> Iterator[dict[str, str]]:
    import redis

    try:
        _admin_connection().close()
    except Exception as error:
        pytest.skip(f"PostgreSQL unreachable at {PG}: {error}")
    try:
        redis.Redis.from_url(f"{REDIS}/{BROKER_DB}", socket_connect_timeout=3).ping()
    except Exception as error:
        pytest.skip(f"Redis unreachable at {REDIS}: {error}")
    name = f"studio_test_{os.getpid()}"
    with _admin_connection() as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')
    for number in (BROKER_DB, LAYER_DB):
        redis.Redis.from_url(f"{REDIS}/{number}").flushdb()
    try:
        yield {
            "DATABASE_URL": f"{PG}/{name}",
            "CELERY_BROKER_URL": f"{REDIS}/{BROKER_DB}",
            "CHANNEL_REDIS_URL": f"{REDIS}/{LAYER_DB}",
        }
    finally:
        for number in (BROKER_DB, LAYER_DB):
            redis.Redis.from_url(f"{REDIS}/{number}").flushdb()
        with _admin_connection() as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def stays_open_while_idle(port: int, run_id: int, token: str) -> None:
    """An idle socket outlives redis-py's default 5 s read timeout (no close 1011)."""
    url = f"ws://127.0.0.1:{port}/ws/runs/{run_id}/?after=999999"
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url, origin=f"http://127.0.0.1:{port}") as ws,
    ):
        await ws.send_json({"type": "auth", "token": token})  # as follow_run: never in the URL
        first = await ws.receive(timeout=10)
        assert json.loads(first.data)["type"] == "replayed"
        with pytest.raises(asyncio.TimeoutError):
            message = await ws.receive(timeout=7)
            pytest.fail(f"the idle socket got {message.type} {message.data!r}")


async def upload_dataset(http: aiohttp.ClientSession, base: str) -> dict[str, Any]:
    """Upload the capitals CSV; the ``short`` worker validates it."""
    questions, answers, _ = capitals_task()
    csv = "query,answer\n" + "".join(
        f'"{q["query"]}","{a["answer"]}"\n' for q, a in zip(questions, answers, strict=True)
    )
    form = aiohttp.FormData()
    form.add_field("file", csv.encode(), filename="capitals.csv", content_type="text/csv")
    form.add_field("name", f"capitals {time.monotonic()}")
    form.add_field("input_schema", json.dumps(Query.model_json_schema()))
    form.add_field("output_schema", json.dumps(Answer.model_json_schema()))
    async with http.post(f"{base}/datasets/", data=form) as response:
        assert response.status == 201, await response.text()
        return dict(await response.json())


async def validated(http: aiohttp.ClientSession, base: str, dataset: dict[str, Any]) -> float:
    """Seconds until the dataset is validated (through the Redis broker)."""
    started = time.monotonic()
    for _ in range(150):
        async with http.get(f"{base}/datasets/{dataset['id']}/") as response:
            dataset = await response.json()
        if dataset["status"] in ("valid", "invalid"):
            break
        await asyncio.sleep(0.2)
    assert dataset["status"] == "valid", dataset
    return time.monotonic() - started


async def start_run_through_the_api(port: int, token: str, api_base: str) -> int:
    """Upload a CSV, wait for the worker to validate it, create provider, program and run."""
    base = f"http://127.0.0.1:{port}/api"
    headers = {"Authorization": f"Token {token}"}
    async with aiohttp.ClientSession(headers=headers) as http:
        dataset = await upload_dataset(http, base)
        await validated(http, base, dataset)
        provider_body = {
            "name": f"scripted {time.monotonic()}", "model": "openai/scripted",
            "api_base": api_base,
        }  # fmt: skip
        async with http.post(f"{base}/providers/", json=provider_body) as response:
            assert response.status == 201, await response.text()
            provider = await response.json()
        document = await asyncio.to_thread(program_document)  # it runs its own event loop
        async with http.post(
            f"{base}/programs/", json={"name": f"capitals {time.monotonic()}", "document": document}
        ) as response:
            assert response.status == 201, await response.text()
            program = await response.json()
        async with http.get(f"{base}/programs/{program['id']}/versions/") as response:
            version = (await response.json())["results"][0]
        run_body = {
            "program_version": version["id"], "dataset": dataset["id"], "provider": provider["id"],
            "compile_config": COMPILE_CONFIG,
            "fit_config": {"epochs": 2, "batch_size": 8, "evaluations": 1, "seed": 0},
        }  # fmt: skip
        async with http.post(f"{base}/runs/", json=run_body) as response:
            assert response.status == 201, await response.text()
            return int((await response.json())["id"])


async def test_a_run_streams_every_event_in_order_through_postgres_and_redis(
    services_env, tmp_path
):
    _, _, student = capitals_task()
    stack = ScaledOutStack(services_env, tmp_path)
    with ScriptedServer(student.from_request, latency=0.02) as server, stack.running():
        token = stack.create_token()
        try:
            run_id = await start_run_through_the_api(stack.port, token, server.base_url)
            messages = await follow_run(stack.port, run_id, token)
            await stays_open_while_idle(stack.port, run_id, token)
        except Exception:
            print(stack.logs())
            raise
    events = [m for m in messages if m["type"] == "event"]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert events[-1]["payload"]["state"] == "succeeded", stack.logs()
    assert [e["payload"]["epoch"] for e in events if e["kind"] == "epoch"] == [0, 1]
    replayed_at = next(i for i, m in enumerate(messages) if m["type"] == "replayed")
    assert any(m["type"] == "event" for m in messages[replayed_at:]), "nothing arrived live"
    kinds = {e["kind"] for e in events}
    assert {"train_begin", "batch", "optimizer", "checkpoint", "evaluation", "usage"} <= kinds


async def test_short_work_and_a_cancel_are_not_held_up_by_a_run_on_a_silent_provider(
    services_env, tmp_path
):
    stack = ScaledOutStack(services_env, tmp_path)
    with ScriptedServer() as silent, stack.running():
        silent.stall_next(math.inf, times=100_000)  # accepts every request, answers none
        token = stack.create_token()
        base = f"http://127.0.0.1:{stack.port}/api"
        try:
            run_id = await start_run_through_the_api(stack.port, token, silent.base_url)
            async with aiohttp.ClientSession(headers={"Authorization": f"Token {token}"}) as http:
                for _ in range(150):  # until the training worker's calls hang
                    if silent.stats.in_flight:
                        break
                    await asyncio.sleep(0.2)
                assert silent.stats.in_flight, "the run never called the provider"
                # The training worker is busy: the short one validates a new upload.
                took = await validated(http, base, await upload_dataset(http, base))
                async with http.post(f"{base}/runs/{run_id}/cancel/") as response:
                    assert response.status == 200, await response.text()
                cancelled_at = time.monotonic()
                for _ in range(150):
                    async with http.get(f"{base}/runs/{run_id}/") as response:
                        run = await response.json()
                    if run["state"] != "running":
                        break
                    await asyncio.sleep(0.1)
                cancel_s = time.monotonic() - cancelled_at
        except Exception:
            print(stack.logs())
            raise
    print(f"validation while training: {took:.1f} s; cancel: {cancel_s:.1f} s")
    assert took < 10, f"validation waited {took:.1f} s behind the run"
    assert run["state"] == "cancelled", (run, stack.logs())
    assert cancel_s < 10, f"the cancel took {cancel_s:.1f} s"
