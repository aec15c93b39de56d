"""A scripted capitals "student" behind an OpenAI-compatible server, and the batch queue."""

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
def enqueued(monkeypatch) -> list[tuple[str, int]]:
    """Tasks the code enqueued (the tests run the task bodies themselves)."""
    from studio.deployments import batch

    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(batch, "enqueue", lambda name, *args: calls.append((name, *args)))
    return calls
