"""The runs list stays light: figures per run, not the test rows; the rows come a page at a
time from the run's examples endpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest

from studio.runs.models import Run
from studio.runs.significance import paired_gain, run_gain, versus
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = pytest.mark.django_db

ROWS = 100


def _phase(reward: float) -> dict[str, Any]:
    return {
        "summary": {"reward": {"mean": reward, "std": 0.1}},
        "examples": [
            {
                "input": {"q": f"question {i} " * 10},
                "expected": {"a": "x" * 80},
                "output": {"a": "y" * 80},
                "reward": reward,
                "error": None,
                "trace": [],
            }
            for i in range(ROWS)
        ],
    }


@pytest.fixture
def run(user) -> Run:
    return Run.objects.create(
        owner=user,
        program_version=make_version(user, name="Capitals"),
        dataset=make_dataset(user),
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
        before=_phase(0.2),
        after=_phase(0.6),
        before_rewards=[0.2] * ROWS,
        after_rewards=[0.6] * ROWS,
        gain=paired_gain([0.2] * ROWS, [0.6] * ROWS),
        usage={"calls": 400, "cost": 0.0},
    )


def test_list_is_at_most_2_kb_a_run_with_100_test_rows(api: Any, run: Run) -> None:
    results = api.get("/api/runs/").json()["results"]
    assert len(results) == 1
    assert len(json.dumps(results[0]).encode()) <= 2048
    assert results[0]["after"]["summary"]["reward"]["mean"] == 0.6
    assert results[0]["usage"]["calls"] == 400
    assert results[0]["gain"]["verdict"] == "significant gain"  # the verdict, not just means


def test_examples_come_a_page_at_a_time(api: Any, run: Run) -> None:
    first = api.get(f"/api/runs/{run.pk}/examples/?page=1&page_size=40").json()
    last = api.get(f"/api/runs/{run.pk}/examples/?page=3&page_size=40").json()
    assert first["count"] == ROWS
    assert len(first["results"]) == 40 and len(last["results"]) == 20
    assert first["results"][0]["before_reward"] == 0.2
    assert first["results"][0]["after_reward"] == 0.6
    bad = api.get(f"/api/runs/{run.pk}/examples/?page=0")
    assert bad.status_code == 400 and "page" in bad.json()


def test_detail_carries_the_figures_and_the_verdict_not_the_test_rows(api: Any, run: Run) -> None:
    detail = api.get(f"/api/runs/{run.pk}/").json()
    assert "examples" not in detail["before"] and "examples" not in detail["after"]
    assert detail["after"]["summary"]["reward"]["mean"] == 0.6
    assert detail["gain"]["n"] == ROWS
    assert detail["usage"]["calls"] == 400
    # Without its trained document (none here) the detail is as light as a list row.
    assert len(json.dumps(detail).encode()) <= 4096


def _compared_run(user: Any, dataset: Any, name: str, after: list[float]) -> Run:
    return Run.objects.create(
        owner=user,
        program_version=make_version(user, name=name),
        dataset=dataset,
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
        before=_phase(0.2),
        after=_phase(0.6),
        before_rewards=[0.0 if i % 3 else 1.0 for i in range(ROWS)],
        after_rewards=after,
        test_rows_digest="same rows",
        usage={"calls": 400, "cost": 0.0},
    )


def test_compare_carries_the_verdicts_not_the_test_rows(api: Any, user: Any) -> None:
    dataset = make_dataset(user)
    first = _compared_run(user, dataset, "First", [1.0 if i % 4 else 0.0 for i in range(ROWS)])
    second = _compared_run(user, dataset, "Second", [1.0 if i % 5 else 0.0 for i in range(ROWS)])

    response = api.get(f"/api/runs/compare/?ids={first.pk},{second.pk}")
    one, two = response.json()["runs"]

    assert "examples" not in one and "examples" not in two
    assert len(response.content) < 10_240
    # The verdicts, computed from the stored per-row rewards, as before.
    assert one["gain"] == run_gain(first) and one["gain"]["n"] == ROWS
    assert one["gain"]["verdict"] == "significant gain"
    assert two["versus"] == versus(first, second) and two["versus"]["paired"] is True
    assert two["versus"]["comparison"]["n"] == ROWS
    assert one["after"] == {"reward": {"mean": 0.6, "std": 0.1}}
    assert one["example_count"] == two["example_count"] == ROWS
    # The rows are the examples endpoint's, a page at a time.
    rows = api.get(f"/api/runs/{second.pk}/examples/?page=1&page_size=500").json()
    assert rows["count"] == ROWS and len(rows["results"]) == ROWS
    assert rows["results"][4]["after_reward"] == 1.0 and rows["results"][5]["after_reward"] == 0.0
