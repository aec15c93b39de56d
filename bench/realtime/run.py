"""Websocket latency of run events: from the row's write in a worker-like process to a client.

For each deployment (``redis``: PostgreSQL + Redis broker + channels-redis;
``embedded``: SQLite + the polling channel layer), it starts daphne and a Celery
worker (`tests.studio.realtime.live_stack.LiveStack`), connects a websocket
client (aiohttp, token auth) to a run, then measures two workloads:

- ``synthetic``: a separate process emits N events at a fixed rate through
  `studio.runs.events.emit_sync` (row first, then the channel-layer send);
- ``training``: the worker trains a real run (litellm to a scripted server).

Latency of an event = the client's receive time - the event's ``ts`` (its
``created_at``, stamped in the writing process just before the insert), so it
includes the commit, the layer and the socket. Both ends use this machine's clock.

    .venv/bin/python bench/realtime/run.py [--paths redis embedded] [--events 400]

Needs PostgreSQL and Redis on 127.0.0.1 for the redis path (as `.ci/run` starts them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from optimizer_core.testing.scripted_server import ScriptedServer  # noqa: E402
from optimizer_core.testing.students import capitals_task  # noqa: E402
from tests.studio.realtime.live_stack import LiveStack, follow_run  # noqa: E402

PG = os.environ.get("STUDIO_TEST_PG", "postgresql://postgres@127.0.0.1:5432")
REDIS = os.environ.get("STUDIO_TEST_REDIS", "redis://127.0.0.1:6379")


def percentiles(values: list[float]) -> dict[str, float]:
    ms = np.array(values) * 1000.0
    return {
        "n": len(values),
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
        "max_ms": round(float(ms.max()), 2),
    }


async def synthetic(stack: LiveStack, events: int, rate: float) -> dict[str, float]:
    created = json.loads(stack.manage_module("setup-idle").strip().splitlines()[-1])
    url = f"ws://127.0.0.1:{stack.port}/ws/runs/{created['run']}/"
    latencies: list[float] = []
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url, origin=f"http://127.0.0.1:{stack.port}") as ws,
    ):
        await ws.send_json({"type": "auth", "token": created["token"]})  # never in the URL
        first = json.loads((await ws.receive(timeout=30)).data)
        assert first["type"] == "replayed", first
        emitter = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.studio.realtime.live_stack", "emit",
            str(created["run"]), str(events), str(rate), env=stack.env, cwd=ROOT,
        )  # fmt: skip
        seqs = []
        while len(latencies) < events:
            message = await ws.receive(timeout=60)
            now = time.time()
            data = json.loads(message.data)
            if data["type"] == "event":
                latencies.append(now - data["ts"])
                seqs.append(data["seq"])
        await asyncio.wait_for(emitter.wait(), 60)
    assert seqs == list(range(1, events + 1)), "events out of order or missing"
    return percentiles(latencies)


async def training(stack: LiveStack) -> dict[str, float]:
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request, latency=0.01) as server:
        created = stack.setup_run(server.base_url, epochs=3, batch_size=2)
        try:
            messages = await follow_run(stack.port, created["run"], created["token"], limit_s=300)
        except Exception:
            print(stack.logs(), file=sys.stderr)
            raise
    replayed = next(i for i, m in enumerate(messages) if m["type"] == "replayed")
    live = [m for m in messages[replayed:] if m["type"] == "event"]
    return percentiles([m["received_at"] - m["ts"] for m in live])


def redis_env(workdir: Path) -> tuple[dict[str, str], Any]:
    import psycopg
    import redis

    name = f"studio_bench_{os.getpid()}"
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')
    for number in (12, 13):
        redis.Redis.from_url(f"{REDIS}/{number}").flushdb()

    def cleanup() -> None:
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        for number in (12, 13):
            redis.Redis.from_url(f"{REDIS}/{number}").flushdb()

    env = {
        "DATABASE_URL": f"{PG}/{name}",
        "CELERY_BROKER_URL": f"{REDIS}/12",
        "CHANNEL_REDIS_URL": f"{REDIS}/13",
    }
    return env, cleanup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", default=["redis", "embedded"])
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--rate", type=float, default=50.0, help="synthetic events per second")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    for path in args.paths:
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp)
            env, cleanup = redis_env(workdir) if path == "redis" else ({}, lambda: None)
            try:
                stack = LiveStack(env, workdir)
                with stack.running():
                    results[path] = {
                        "synthetic": asyncio.run(synthetic(stack, args.events, args.rate)),
                        "training": asyncio.run(training(stack)),
                    }
            finally:
                cleanup()
        for workload, figures in results[path].items():
            print(
                f"{path:>9} {workload:>9}: n={figures['n']:4d}  p50={figures['p50_ms']:7.2f} ms  "
                f"p95={figures['p95_ms']:7.2f} ms  max={figures['max_ms']:7.2f} ms",
                flush=True,
            )
    out = ROOT / "bench" / "realtime" / "results.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
