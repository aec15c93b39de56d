"""Two scripted capitals models behind OpenAI-compatible servers, and the evaluation queue.

``good_server`` answers every capital right; ``worse_server`` answers the capital
of every country whose name has an even length in a sentence, which exact match
scores 0: the same program called through it is made worse on purpose.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task


def capitals(*, worse: bool) -> Callable[[dict[str, Any]], dict[str, Any]]:
    questions, answers, _ = capitals_task()
    capital = {q["query"]: a["answer"] for q, a in zip(questions, answers, strict=True)}

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        user = [m for m in request.get("messages", []) if m["role"] == "user"][-1]
        query = json.loads(user["content"])["query"]
        country = query.removeprefix("What is the capital of ").rstrip("?")
        if worse and len(country) % 2 == 0:
            return {"answer": f"The capital of {country} is {capital[query]}."}
        return {"answer": capital[query]}

    return respond


@pytest.fixture
def good_server(allow_outgoing) -> Iterator[ScriptedServer]:
    with ScriptedServer(capitals(worse=False)) as server:
        allow_outgoing(server)
        yield server


@pytest.fixture
def worse_server(allow_outgoing) -> Iterator[ScriptedServer]:
    with ScriptedServer(capitals(worse=True)) as server:
        allow_outgoing(server)
        yield server


@pytest.fixture(autouse=True)
def enqueued(monkeypatch) -> list[tuple[str, int]]:
    """Tasks the code enqueued (the tests run the task body themselves)."""
    from studio.evaluations import services

    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(services, "enqueue", lambda name, *args: calls.append((name, *args)))
    return calls
