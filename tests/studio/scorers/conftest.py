"""Code rewards run in the real sandbox (compiled once for this machine, as `make` does)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from optimizer_core.sandbox import prepare
from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task

WITHIN = """
def reward(y_true, y_pred):
    if y_pred["answer"] == y_true["answer"]:
        return 1.0
    print("compared", y_pred["answer"])
    return 0.0, f"expected {y_true['answer']}, got {y_pred['answer']}"
"""


@pytest.fixture(scope="session", autouse=True)
def sandbox_runtime() -> Any:
    return prepare()


@pytest.fixture
def scripted_server(allow_outgoing) -> Iterator[ScriptedServer]:
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request) as server:
        allow_outgoing(server)
        yield server


@pytest.fixture(autouse=True)
def enqueued(monkeypatch) -> list[int]:
    from studio.runs import tasks

    calls: list[int] = []
    monkeypatch.setattr(tasks.run_training, "delay", calls.append)
    return calls
