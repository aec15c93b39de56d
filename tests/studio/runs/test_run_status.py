"""The light status read the runs table polls: own runs only, small, one query."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = pytest.mark.django_db

ROWS = 100


def _phase(reward: float) -> dict[str, Any]:
    """An evaluation with 100 stored test rows (what a status must not carry)."""
    row = {"input": {"q": "question " * 10}, "expected": {"a": "x" * 80}, "reward": reward}
    return {"summary": {"reward": {"mean": reward, "std": 0.1}}, "examples": [row] * ROWS}


def _run(owner: Any, **fields: Any) -> Run:
    defaults: dict[str, Any] = {
        "owner": owner,
        "program_version": make_version(owner),
        "dataset": make_dataset(owner),
        "compile_config": COMPILE_CONFIG,
        "fit_config": {"epochs": 3},
        "before": _phase(0.2),
        "after": _phase(0.6),
        "before_rewards": [0.2] * ROWS,
        "after_rewards": [0.6] * ROWS,
    }
    return Run.objects.create(**{**defaults, **fields})


def test_status_answers_state_and_progress_of_own_runs_only(
    api: Any, user: Any, other_user: Any
) -> None:
    running = _run(
        user,
        state=Run.State.RUNNING,
        current_epoch=1,
        started_at=timezone.now(),
        usage={"calls": 40, "total_tokens": 900, "cost": 0.01, "concurrency_history": [{}] * 50},
    )
    heard = running.created_at + timedelta(seconds=30)  # the worker's last heartbeat
    Run.objects.filter(pk=running.pk).update(heartbeat_at=heard)
    done = _run(user, state=Run.State.SUCCEEDED, current_epoch=3)
    theirs = _run(other_user, state=Run.State.RUNNING)
    missing = theirs.pk + 1000

    answer = api.get(f"/api/runs/status/?ids={done.pk},{running.pk},{theirs.pk},{missing}")

    assert answer.status_code == 200
    statuses = answer.json()
    assert [s["id"] for s in statuses] == [done.pk, running.pk]
    assert statuses[1]["state"] == "running"
    assert statuses[1]["progress"] == {
        "epoch": 1,
        "epochs": 3,
        "calls": 40,
        "tokens": 900,
        "cost": 0.01,
    }
    assert parse_datetime(statuses[1]["updated_at"]) == heard
    assert statuses[0]["state"] == "succeeded" and statuses[0]["progress"]["epoch"] == 3
    assert statuses[0]["progress"]["calls"] is None


def test_a_status_row_is_small_however_many_test_rows_the_run_stored(api: Any, user: Any) -> None:
    run = _run(
        user, state=Run.State.RUNNING, usage={"calls": 4, "concurrency_history": [{"n": 1}] * 500}
    )
    row = api.get(f"/api/runs/status/?ids={run.pk}").json()[0]
    assert len(json.dumps(row).encode()) <= 256
    assert set(row) == {"id", "state", "progress", "updated_at"}


@pytest.mark.parametrize(
    "ids", ["", "1,x", "1,,2", "-1", "0", "1.5", "99999999999999999999", ",".join(["1"] * 101)]
)
def test_malformed_or_too_many_ids_are_refused_naming_the_parameter(api: Any, ids: str) -> None:
    answer = api.get(f"/api/runs/status/?ids={ids}")
    assert answer.status_code == 400
    assert "ids" in answer.json()


def test_status_reads_the_same_queries_for_one_run_or_a_hundred(
    api: Any, user: Any, django_assert_max_num_queries: Any
) -> None:
    runs = [_run(user, state=Run.State.RUNNING) for _ in range(3)]
    with django_assert_max_num_queries(2) as one:  # the session's user, the runs
        api.get(f"/api/runs/status/?ids={runs[0].pk}")
    ids = ",".join(str(r.pk) for r in runs) + "," + ",".join(str(10_000 + i) for i in range(97))
    with django_assert_max_num_queries(len(one.captured_queries)) as hundred:
        assert len(api.get(f"/api/runs/status/?ids={ids}").json()) == 3
    read = " ".join(q["sql"] for q in hundred.captured_queries)
    assert '"after"' not in read and '"before_rewards"' not in read  # the rows stay unread
