"""A run's test rows carry what the reward said of each, before and after training."""

from __future__ import annotations

from typing import Any

import pytest

from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = pytest.mark.django_db


def _row(answer: str, reward: float, feedback: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "input": {"query": "Capital of France?"},
        "expected": {"answer": "Paris"},
        "output": {"answer": answer},
        "reward": reward,
        "error": None,
        "trace": [],
    }
    if feedback is not None:
        row["feedback"] = feedback
    return row


def _run(user: Any, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> Run:
    return Run.objects.create(
        owner=user,
        program_version=make_version(user, name="Capitals"),
        dataset=make_dataset(user),
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
        before={"summary": {}, "examples": before},
        after={"summary": {}, "examples": after},
        before_rewards=[r["reward"] for r in before],
        after_rewards=[r["reward"] for r in after],
    )


def test_each_row_carries_its_feedback_before_and_after_training(api: Any, user: Any) -> None:
    run = _run(
        user,
        before=[
            _row("Lyon", 0.0, "answer: expected 'Paris', got 'Lyon'"),
            _row("Rome", 0.0, "answer: expected 'Paris', got 'Rome'"),
        ],
        after=[_row("Paris", 1.0), _row("Nice", 0.0, "answer: expected 'Paris', got 'Nice'")],
    )
    rows = api.get(f"/api/runs/{run.pk}/examples/").json()["results"]
    assert [(r["before_feedback"], r["feedback"]) for r in rows] == [
        ("answer: expected 'Paris', got 'Lyon'", None),
        ("answer: expected 'Paris', got 'Rome'", "answer: expected 'Paris', got 'Nice'"),
    ]
    assert [(r["before_reward"], r["after_reward"]) for r in rows] == [(0.0, 1.0), (0.0, 0.0)]


def test_rows_stored_before_feedback_existed_read_as_none(api: Any, user: Any) -> None:
    run = _run(user, before=[_row("Lyon", 0.0)], after=[_row("Paris", 1.0), _row("Nice", 0.0)])
    rows = api.get(f"/api/runs/{run.pk}/examples/").json()["results"]
    assert [(r["before_feedback"], r["feedback"]) for r in rows] == [(None, None), (None, None)]
