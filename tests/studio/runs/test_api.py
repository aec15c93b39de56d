"""The runs REST API: owner-only, validation errors by field, events, checkpoints, compare."""

from __future__ import annotations

from typing import Any

import pytest

from studio.runs import services
from studio.runs.models import Run
from studio.runs.training import execute_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db

FIT = {"epochs": 2, "batch_size": 8, "evaluations": 1, "seed": 0}


def body(
    user: Any, base_url: str = "http://provider.invalid/v1", **overrides: Any
) -> dict[str, Any]:
    return {
        "name": "first",
        "program_version": make_version(user).pk,
        "dataset": make_dataset(user).pk,
        "provider": make_provider(user, base_url).pk,
        "compile_config": COMPILE_CONFIG,
        "fit_config": FIT,
        **overrides,
    }


def test_create_queues_a_run_and_enqueues_it_once_committed(
    api, user, enqueued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/runs/", body(user), format="json")
    assert response.status_code == 201, response.json()
    run = response.json()
    assert run["state"] == "queued" and run["name"] == "first"
    assert run["fit_config"]["validation_split"] == 0.0  # defaults filled in
    assert enqueued == [run["id"]]


def test_create_names_the_bad_field(api, user):
    bad = body(user, fit_config={"epochs": -1})
    response = api.post("/api/runs/", bad, format="json")
    assert response.status_code == 400
    assert "fit_config.epochs" in response.json()
    bad = body(user, compile_config={**COMPILE_CONFIG, "reward": "nope"})
    assert "compile_config.reward.name" in api.post("/api/runs/", bad, format="json").json()
    bad = body(user, fit_config={**FIT, "early_stopping": {"monitor": "val_loss"}})
    response = api.post("/api/runs/", bad, format="json")
    assert response.status_code == 400
    [message] = response.json()["fit_config.early_stopping.monitor"]
    assert "'val_loss'" in message and "one of reward, f1_score" in message


def test_another_users_rows_cannot_be_used_or_seen(api, other_api, user, other_user):
    response = api.post(
        "/api/runs/", body(user, dataset=make_dataset(other_user).pk), format="json"
    )
    assert response.status_code == 400 and "dataset" in response.json()
    run_id = api.post("/api/runs/", body(user), format="json").json()["id"]
    for path in ("", "events/", "checkpoints/"):
        assert other_api.get(f"/api/runs/{run_id}/{path}").status_code == 404
    assert other_api.post(f"/api/runs/{run_id}/cancel/").status_code == 404
    assert other_api.get("/api/runs/").json()["count"] == 0
    assert other_api.get(f"/api/runs/compare/?ids={run_id}").status_code == 404


def test_list_filters_orders_and_paginates(api, user):
    ids = [
        api.post("/api/runs/", body(user, name=f"r{i}"), format="json").json()["id"]
        for i in range(3)
    ]
    Run.objects.filter(pk=ids[0]).update(state=Run.State.FAILED)
    listing = api.get("/api/runs/").json()
    assert listing["count"] == 3 and [r["id"] for r in listing["results"]] == ids[::-1]
    assert [r["id"] for r in api.get("/api/runs/?state=failed").json()["results"]] == [ids[0]]
    assert [r["id"] for r in api.get("/api/runs/?ordering=created_at").json()["results"]] == ids
    assert [r["id"] for r in api.get("/api/runs/?search=r1").json()["results"]] == [ids[1]]


def test_cancel_a_queued_run_then_a_second_cancel_conflicts(api, user):
    run_id = api.post("/api/runs/", body(user), format="json").json()["id"]
    response = api.post(f"/api/runs/{run_id}/cancel/")
    assert response.status_code == 200 and response.json()["state"] == "cancelled"
    assert api.post(f"/api/runs/{run_id}/cancel/").status_code == 409


@pytest.mark.litellm
def test_events_checkpoints_fork_and_compare_of_trained_runs(api, user, scripted_server, enqueued):
    run_id = api.post("/api/runs/", body(user, scripted_server.base_url), format="json").json()[
        "id"
    ]
    execute_run(run_id)
    assert api.get(f"/api/runs/{run_id}/").json()["state"] == "succeeded"

    page = api.get(f"/api/runs/{run_id}/events/?after=0&limit=5").json()
    assert [e["seq"] for e in page["events"]] == [1, 2, 3, 4, 5]
    assert page["last_seq"] == 5 and page["has_more"] is True
    rest = api.get(f"/api/runs/{run_id}/events/?after=5&limit=5000").json()
    assert rest["events"][0]["seq"] == 6 and rest["has_more"] is False
    epochs = api.get(f"/api/runs/{run_id}/events/?kind=epoch").json()["events"]
    assert [e["payload"]["epoch"] for e in epochs] == [0, 1]
    assert api.get(f"/api/runs/{run_id}/events/?after=x").status_code == 400

    checkpoints = api.get(f"/api/runs/{run_id}/checkpoints/").json()
    assert [c["epoch"] for c in checkpoints] == [1, 2] and "document" not in checkpoints[0]
    full = api.get(f"/api/runs/{run_id}/checkpoints/?document=1").json()
    assert full[0]["document"]["kind"] == "optimizer_core.program"

    assert api.post(f"/api/runs/{run_id}/fork/", {"epoch": 9}, format="json").status_code == 400
    fork = api.post(
        f"/api/runs/{run_id}/fork/", {"epoch": 1, "fit_config": {"epochs": 3}}, format="json"
    )
    assert fork.status_code == 201, fork.json()
    fork_id = fork.json()["id"]
    assert fork.json()["parent"] == run_id and fork.json()["fork_epoch"] == 1
    execute_run(fork_id)

    compared = api.get(f"/api/runs/compare/?ids={run_id},{fork_id}").json()
    first, second = compared["runs"]
    assert first["curves"]["epoch"] == [0, 1] and second["curves"]["epoch"] == [1, 2]
    assert len(first["curves"]["reward"]) == 2 and "f1_score" in first["curves"]
    assert {"mean", "std"} == set(first["after"]["reward"]) == set(first["before"]["reward"])
    assert "examples" not in first  # the rows come from the examples endpoint
    rows = api.get(f"/api/runs/{run_id}/examples/?page_size=500").json()["results"]
    assert {
        "input", "expected", "output", "reward", "error", "trace", "before_reward", "after_reward",
        "feedback", "before_feedback",
    } == set(rows[0])  # fmt: skip
    # ExactMatch says which field differs on a wrong row, nothing on a right one.
    for row in rows:
        if row["error"] is None and row["reward"] == 1.0:
            assert row["feedback"] is None
        elif row["error"] is None:
            assert row["feedback"].startswith("answer: expected ")
    ((_, variable),) = compared["variables"].items()
    assert set(variable["values"]) == {str(run_id), str(fork_id)}
    assert set(variable["changed_fields"]) <= {"instructions", "examples"}
    assert api.get("/api/runs/compare/?ids=").status_code == 400


def test_the_schema_names_every_runs_operation(api):
    schema = api.get("/api/schema/?format=json").json()
    operations = {
        op["operationId"]
        for path in schema["paths"].values()
        for op in path.values()
        if isinstance(op, dict) and "operationId" in op
    }
    assert {
        "runs_list",
        "runs_create",
        "runs_retrieve",
        "runs_cancel",
        "runs_fork",
        "runs_events",
        "runs_checkpoints",
        "runs_compare",
    } <= operations


def test_service_errors_for_cancel_of_a_finished_run(user):
    run = services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, "http://provider.invalid/v1"),
        compile_config=COMPILE_CONFIG,
        fit_config=FIT,
    )
    Run.objects.filter(pk=run.pk).update(state=Run.State.SUCCEEDED)
    run.refresh_from_db()
    with pytest.raises(services.InvalidTransition):
        services.cancel_run(run)
