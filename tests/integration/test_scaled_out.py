"""The scaled-out deployment against the real services: PostgreSQL, Redis, channels-redis.

A fresh database (``studio_test_<pid>``) and dedicated Redis databases (14 for
the broker, 15 for the channel layer) are created for the test and removed
after it. daphne and a Celery worker run as subprocesses with DATABASE_URL,
CELERY_BROKER_URL and CHANNEL_REDIS_URL set; a run of two epochs goes through
litellm to a scripted server and a websocket client (token auth) must see every
event in order, with no gap in seq, ending in ``succeeded``.

Skipped, with the reason, only when PostgreSQL or Redis cannot be reached
(``.ci/run`` starts both).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator

import aiohttp
import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from tests.studio.realtime.live_stack import LiveStack, follow_run

pytestmark = [pytest.mark.services, pytest.mark.litellm, pytest.mark.timeout(300)]

PG = os.environ.get("STUDIO_TEST_PG", "postgresql://postgres@127.0.0.1:5432")
REDIS = os.environ.get("STUDIO_TEST_REDIS", "redis://127.0.0.1:6379")
BROKER_DB, LAYER_DB = 14, 15


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
    url = f"ws://127.0.0.1:{port}/ws/runs/{run_id}/?after=999999&token={token}"
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url, origin=f"http://127.0.0.1:{port}") as ws,
    ):
        first = await ws.receive(timeout=10)
        assert json.loads(first.data)["type"] == "replayed"
        with pytest.raises(asyncio.TimeoutError):
            message = await ws.receive(timeout=7)
            pytest.fail(f"the idle socket got {message.type} {message.data!r}")


async def test_a_run_streams_every_event_in_order_through_postgres_and_redis(
    services_env, tmp_path
):
    _, _, student = capitals_task()
    stack = LiveStack(services_env, tmp_path)
    with ScriptedServer(student.from_request, latency=0.02) as server, stack.running():
        created = stack.setup_run(server.base_url, epochs=2)
        try:
            messages = await follow_run(stack.port, created["run"], created["token"])
            await stays_open_while_idle(stack.port, created["run"], created["token"])
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
