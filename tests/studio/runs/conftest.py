"""A scripted OpenAI-compatible server answering as the capitals "student"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task


@pytest.fixture
def scripted_server(allow_outgoing) -> Iterator[ScriptedServer]:
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request) as server:
        allow_outgoing(server)
        yield server


@pytest.fixture(autouse=True)
def enqueued(monkeypatch) -> list[int]:
    """Run ids the code enqueued (the tests run the task body themselves)."""
    from studio.runs import tasks

    calls: list[int] = []
    monkeypatch.setattr(tasks.run_training, "delay", calls.append)
    return calls
