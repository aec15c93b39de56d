"""POST /api/evaluations/: a candidate against a baseline, paired, at temperature 0."""

from __future__ import annotations

from typing import Any

import pytest

from studio.evaluations.execution import execute_evaluation
from studio.evaluations.models import Evaluation, EvaluationEvent
from tests.studio.runs.factories import make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

ROWS = 40


@pytest.fixture
def objects(user, good_server, worse_server) -> dict[str, Any]:
    return {
        "version": make_version(user),
        "dataset": make_dataset(user, rows=ROWS, test_fraction=0.5),
        "good": make_provider(user, good_server.base_url),
        "worse": make_provider(user, worse_server.base_url),
    }


def body(objects: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {
        "candidate_version": objects["version"].pk,
        "candidate_provider": objects["worse"].pk,
        "baseline_version": objects["version"].pk,
        "baseline_provider": objects["good"].pk,
        "dataset": objects["dataset"].pk,
        **changes,
    }


def start(api: Any, data: dict[str, Any], capture: Any) -> dict[str, Any]:
    with capture(execute=True):
        response = api.post("/api/evaluations/", data, format="json")
    assert response.status_code == 202, response.json()
    return response.json()


def test_a_worse_candidate_is_a_significant_regression(
    api, objects, enqueued, django_capture_on_commit_callbacks
):
    started = start(api, body(objects), django_capture_on_commit_callbacks)
    assert started["state"] == "queued" and started["result"] is None
    assert started["url"] == f"/api/evaluations/{started['id']}/"
    assert started["dataset_version"] == 1 and started["split"] == "test"
    assert started["reward"] == {"name": "exact_match", "params": {}}
    assert enqueued == [("evaluations.run_evaluation", started["id"])]

    assert execute_evaluation(started["id"]) == 0
    done = api.get(started["url"]).json()
    assert done["state"] == "succeeded", done["error"]
    rows = len(done["baseline_rewards"])
    assert rows == ROWS // 2 and len(done["candidate_rewards"]) == rows
    assert done["baseline_rewards"] == [1.0] * rows
    assert 0 < sum(done["candidate_rewards"]) < rows  # wrong on some rows, right on others
    result = done["result"]
    assert result["verdict"] == "significant loss" and result["regression"] is True
    assert result["n"] == rows and result["mean_baseline"] == 1.0
    assert result["ci_low"] <= result["difference"] <= result["ci_high"] < 0
    assert done["usage"]["calls"] == 2 * rows

    events = EvaluationEvent.objects.filter(evaluation_id=started["id"]).order_by("seq")
    assert [e.payload["state"] for e in events if e.kind == "state"] == [
        "queued",
        "running",
        "succeeded",
    ]
    assert [e.payload["side"] for e in events if e.kind == "progress"] == [
        "baseline",
        "candidate",
    ]


def test_the_same_program_and_provider_is_no_change(
    api, objects, django_capture_on_commit_callbacks
):
    started = start(
        api,
        body(objects, candidate_provider=objects["good"].pk),
        django_capture_on_commit_callbacks,
    )
    execute_evaluation(started["id"])
    result = api.get(started["url"]).json()["result"]
    assert result["verdict"] == "no detectable change" and result["regression"] is False
    assert result["difference"] == 0.0


def test_a_deployment_is_evaluated_with_the_provider_it_predicts_with(
    api, user, objects, django_capture_on_commit_callbacks
):
    from studio.providers.models import Provider

    Provider.objects.filter(pk=objects["good"].pk).update(is_default=True)
    response = api.post(
        "/api/deployments/",
        {"name": "cap", "program_version": objects["version"].pk},
        format="json",
    )
    assert response.status_code == 201, response.json()
    deployment = response.json()["id"]
    data = body(objects, candidate_version=None, candidate_provider=None)
    started = start(
        api, {**data, "candidate_deployment": deployment}, django_capture_on_commit_callbacks
    )
    assert started["candidate_deployment"] == deployment
    assert started["candidate_provider"] == objects["good"].pk  # the default, as it serves
    execute_evaluation(started["id"])
    done = api.get(started["url"]).json()
    assert done["state"] == "succeeded", done["error"]
    assert done["result"]["verdict"] == "no detectable change"


def test_an_evaluation_that_fails_says_why(
    api, objects, good_server, django_capture_on_commit_callbacks
):
    started = start(api, body(objects), django_capture_on_commit_callbacks)
    Evaluation.objects.filter(pk=started["id"]).update(candidate_version=None)
    execute_evaluation(started["id"])
    done = api.get(started["url"]).json()
    assert done["state"] == "failed" and done["result"] is None
    assert "the candidate's program version or deployment target was deleted" in done["error"]


def test_another_users_evaluation_is_not_found_and_lists_are_the_owners(
    api, other_api, objects, django_capture_on_commit_callbacks
):
    started = start(api, body(objects), django_capture_on_commit_callbacks)
    assert other_api.get(started["url"]).status_code == 404
    assert other_api.get("/api/evaluations/").json()["results"] == []
    listed = api.get("/api/evaluations/").json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == started["id"]


def refused(api: Any, data: dict[str, Any]) -> dict[str, Any]:
    response = api.post("/api/evaluations/", data, format="json")
    assert response.status_code == 400, response.json()
    assert not Evaluation.objects.exists()
    return response.json()


@pytest.mark.parametrize(
    "field", ["candidate_version", "baseline_provider", "dataset", "candidate_deployment"]
)
def test_another_users_objects_are_refused_naming_the_field(
    api, objects, other_user, good_server, field
):
    from studio.deployments.models import Deployment

    theirs = {
        "candidate_version": make_version(other_user).pk,
        "baseline_provider": make_provider(other_user, good_server.base_url).pk,
        "dataset": make_dataset(other_user).pk,
        "candidate_deployment": Deployment.objects.create(owner=other_user, name="theirs").pk,
    }
    data = body(objects, **{field: theirs[field]})
    if field == "candidate_deployment":
        data.pop("candidate_version")
    assert field in refused(api, data)


def test_a_side_names_a_version_or_a_deployment(api, objects):
    data = body(objects)
    data.pop("baseline_version")
    assert "baseline" in refused(api, data)


def test_a_missing_dataset_version_is_refused(api, objects):
    errors = refused(api, body(objects, dataset_version=7))
    assert "no version 7" in errors["dataset_version"][0]


def test_an_unknown_reward_is_refused_naming_the_field(api, objects):
    errors = refused(api, body(objects, reward={"name": "no_such_reward"}))
    assert "unknown name 'no_such_reward'" in errors["reward.name"][0]


def test_a_version_needs_a_provider_when_there_is_no_default(api, objects):
    errors = refused(api, body(objects, baseline_provider=None))
    assert "default language provider" in errors["baseline_provider"][0]


def test_a_provider_the_outgoing_policy_refuses_is_refused_before_any_call(api, user, objects):
    closed = make_provider(user, "http://127.0.0.1:9/v1")  # loopback, not allowed
    errors = refused(api, body(objects, candidate_provider=closed.pk))
    assert list(errors) == ["candidate_provider"]
