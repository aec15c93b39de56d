"""The runs and deployments lists read only what they show: a fixed number of queries
whatever the page holds, and none of the columns that carry each run's test rows or
trained document (what made a page of 50 runs cost about a second, bench/lists)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from studio.deployments import services as deployments
from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = pytest.mark.django_db

ROWS = 20


def _phase(reward: float) -> dict[str, Any]:
    return {
        "runs": [{"reward": reward}],
        "summary": {"reward": {"mean": reward, "std": 0.0}},
        "examples": [
            {"input": {"query": f"q{i}"}, "expected": {"answer": "a"}, "output": {"answer": "b"}}
            for i in range(ROWS)
        ],
    }


@pytest.fixture
def make_runs(user) -> Any:
    version = make_version(user, name="Capitals")
    dataset = make_dataset(user)
    trained = version.document

    def make(count: int) -> list[Run]:
        return [
            Run.objects.create(
                owner=user,
                name=f"run {i}",
                program_version=version,
                dataset=dataset,
                compile_config=COMPILE_CONFIG,
                fit_config={"epochs": 1},
                state=Run.State.SUCCEEDED,
                before=_phase(0.2),
                after=_phase(0.6),
                before_rewards=[0.2] * ROWS,
                after_rewards=[0.6] * ROWS,
                test_row_keys=[f"{i:016x}" for i in range(ROWS)],
                trained_document=trained,
            )
            for i in range(count)
        ]

    return make


def _reads(api: Any, url: str) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(url)
    assert response.status_code == 200, response.content
    return response.json(), [q["sql"] for q in queries.captured_queries]


HEAVY = {
    *(("runs_run", field) for field in Run.HEAVY_FIELDS),
    ("programs_programversion", "document"),
    ("datasets_dataset", "errors"),
}


def _heavy_columns_read(sql: list[str]) -> set[str]:
    """The heavy columns some query selects whole (reading a key inside one is fine)."""
    selected = {
        (table, column)
        for query in sql
        for table, column in re.findall(r'"(\w+)"\."(\w+)"(?=,\s*"|\s+FROM)', query)
    }
    # A join's alias (T4) stands for the runs table it joins again.
    runs_aliases = {alias for query in sql for alias in re.findall(r'"runs_run" (T\d+)', query)}
    read = set()
    for table, column in selected:
        table = "runs_run" if table in runs_aliases else table
        if (table, column) in HEAVY:
            read.add(f"{table}.{column}")
    return read


def test_the_runs_list_costs_the_same_queries_for_2_runs_or_30(api: Any, make_runs: Any) -> None:
    make_runs(2)
    _, few = _reads(api, "/api/runs/")
    make_runs(28)
    page, many = _reads(api, "/api/runs/")
    assert len(page["results"]) == 30
    assert len(many) == len(few)


def test_the_runs_list_reads_no_test_rows_yet_shows_each_evaluations_figures(
    api: Any, make_runs: Any
) -> None:
    [run] = make_runs(1)
    Run.objects.create(  # queued: nothing evaluated yet
        owner=run.owner,
        program_version=run.program_version,
        dataset=run.dataset,
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
    )
    page, sql = _reads(api, "/api/runs/")
    assert _heavy_columns_read(sql) == set()
    queued, finished = page["results"]
    assert queued["before"] is None and queued["after"] is None
    assert finished["before"] == {"runs": [{"reward": 0.2}], "summary": _phase(0.2)["summary"]}
    assert finished["after"]["summary"]["reward"]["mean"] == 0.6
    # The detail shows the same figures, read from the whole stored evaluation.
    detail = api.get(f"/api/runs/{run.pk}/").json()
    assert detail["before"] == finished["before"] and detail["after"] == finished["after"]


def test_the_deployments_list_reads_none_of_its_runs_results(
    api: Any, user: Any, make_runs: Any
) -> None:
    runs = make_runs(4)
    for i in range(2):
        deployment = deployments.deploy(owner=user, name=f"d{i}", run=runs[2 * i])
        deployments.switch(deployment, run=runs[2 * i + 1])
    page, sql = _reads(api, "/api/deployments/")
    assert _heavy_columns_read(sql) == set()
    names = {(d["target"]["run_name"], d["previous"]["run_name"]) for d in page["results"]}
    assert names == {("run 1", "run 0"), ("run 3", "run 2")}
    more = make_runs(4)
    for i in range(2, 4):
        deployments.deploy(owner=user, name=f"d{i}", run=more[i])
    page, more_sql = _reads(api, "/api/deployments/")
    assert len(page["results"]) == 4 and len(more_sql) == len(sql)
