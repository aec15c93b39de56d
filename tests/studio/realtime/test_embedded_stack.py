"""The embedded deployment end to end: a worker process's events reach a browser socket.

SQLite file, SQLite broker, the polling channel layer; daphne and a Celery
worker as separate processes; the run goes through litellm to a scripted server.
"""

from __future__ import annotations

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from tests.studio.realtime.live_stack import LiveStack, follow_run

pytestmark = [pytest.mark.slow, pytest.mark.litellm, pytest.mark.timeout(240)]


def check_stream(messages: list[dict]) -> list[dict]:
    events = [m for m in messages if m["type"] == "event"]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    assert events[-1]["kind"] == "state" and events[-1]["payload"]["state"] == "succeeded", events[
        -5:
    ]
    replayed_at = next(i for i, m in enumerate(messages) if m["type"] == "replayed")
    live = [m for m in messages[replayed_at:] if m["type"] == "event"]
    assert live, "nothing arrived live after the replay"
    assert [e["payload"]["epoch"] for e in events if e["kind"] == "epoch"] == [0, 1]
    return events


async def test_a_worker_process_streams_its_run_to_a_websocket(tmp_path):
    _, _, student = capitals_task()
    stack = LiveStack({}, tmp_path)
    with ScriptedServer(student.from_request, latency=0.02) as server, stack.running():
        created = stack.setup_run(server.base_url)
        try:
            messages = await follow_run(stack.port, created["run"], created["token"])
        except Exception:
            print(stack.logs())
            raise
    check_stream(messages)
