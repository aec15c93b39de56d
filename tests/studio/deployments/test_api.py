"""The deployments API: deploy, predict by token, switch and roll back, owners, errors, usage."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from studio.deployments.models import Deployment, DeploymentTarget
from studio.providers.models import Provider
from studio.runs.models import Run
from tests.studio.deployments.factories import make_provider, make_run, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

FRANCE = {"query": "What is the capital of France?"}
COUNTRIES = ["France", "Norway", "Japan", "Kenya", "Peru", "Chile"]


def token_client(user: Any) -> APIClient:
    """A script's client: no session, only ``Authorization: Token <key>``."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def answers(client: APIClient, name: str) -> list[str]:
    inputs = [{"query": f"What is the capital of {c}?"} for c in COUNTRIES]
    response = client.post(f"/api/deployments/{name}/predict/", {"inputs": inputs}, format="json")
    assert response.status_code == 200, response.json()
    return [output["answer"] for output in response.json()["outputs"]]


TRAINED = ["Paris", "Oslo", "Tokyo", "Nairobi", "Lima", "Santiago"]


def test_a_deployed_run_answers_a_script_with_its_trained_behaviour(api, user, scripted_server):
    run = make_run(user, make_provider(user, scripted_server.base_url))
    response = api.post("/api/deployments/", {"name": "capitals", "run": run.pk}, format="json")
    assert response.status_code == 201, response.json()
    deployment = response.json()
    assert deployment["predict_url"] == "http://testserver/api/deployments/capitals/predict/"
    assert deployment["target"]["run"] == run.pk and deployment["target"]["reason"] == "deploy"
    assert deployment["target"]["input_schemas"][0]["schema"]["required"] == ["query"]
    assert deployment["previous"] is None

    script = token_client(user)
    response = script.post("/api/deployments/capitals/predict/", {"input": FRANCE}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["output"] == {"answer": "Paris"}
    assert body["run"] == run.pk and body["usage"]["calls"] == 1
    assert answers(script, "capitals") == TRAINED


def test_switch_and_rollback_change_the_program_at_once_and_keep_the_history(
    api, user, scripted_server
):
    provider = make_provider(user, scripted_server.base_url)
    untrained = make_run(user, provider, trained=False, name="untrained")
    trained = make_run(user, provider, name="trained")
    api.post("/api/deployments/", {"name": "cap", "run": untrained.pk}, format="json")
    before = answers(api, "cap")
    assert before != TRAINED and any(a.startswith("The capital of") for a in before)

    response = api.post("/api/deployments/cap/switch/", {"run": trained.pk}, format="json")
    assert response.status_code == 200, response.json()
    switched = response.json()
    assert switched["target"]["run"] == trained.pk and switched["previous"]["run"] == untrained.pk
    assert answers(api, "cap") == TRAINED

    response = api.post("/api/deployments/cap/rollback/")
    assert response.status_code == 200
    assert response.json()["target"]["run"] == untrained.pk
    assert response.json()["previous"]["run"] == trained.pk
    assert answers(api, "cap") == before

    history = api.get("/api/deployments/cap/history/").json()
    assert [(t["reason"], t["run"]) for t in history] == [
        ("rollback", untrained.pk),
        ("switch", trained.pk),
        ("deploy", untrained.pk),
    ]
    assert history[1]["run_name"] == "trained"


def test_a_refused_switch_leaves_the_deployment_as_it_was(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    api.post(
        "/api/deployments/", {"name": "cap", "run": make_run(user, provider).pk}, format="json"
    )
    deployment = Deployment.objects.get(name="cap")
    failed = make_run(user, provider, state=Run.State.FAILED)

    response = api.post("/api/deployments/cap/switch/", {"run": failed.pk}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "run"
    assert "only a succeeded run" in response.json()["errors"][0]["message"]
    fresh = Deployment.objects.get(pk=deployment.pk)
    assert (fresh.target_id, fresh.previous_id) == (deployment.target_id, None)
    assert DeploymentTarget.objects.filter(deployment=deployment).count() == 1

    response = api.post("/api/deployments/cap/rollback/")
    assert response.status_code == 409 and "never switched" in response.json()["detail"]


def test_a_version_is_served_with_the_owners_default_provider(api, user, scripted_server):
    Provider.objects.filter(owner=user).delete()  # a starter provider, where one is installed
    version = make_version(user)
    created = api.post(
        "/api/deployments/", {"name": "v1", "program_version": version.pk}, format="json"
    )
    assert created.status_code == 201, created.json()
    assert created.json()["target"]["run"] is None
    response = api.post("/api/deployments/v1/predict/", {"input": FRANCE}, format="json")
    assert response.status_code == 409 and "default language provider" in response.json()["detail"]

    provider = make_provider(user, scripted_server.base_url)
    provider.is_default = True
    provider.save()
    response = api.post("/api/deployments/v1/predict/", {"input": FRANCE}, format="json")
    assert response.status_code == 200, response.json()
    assert set(response.json()["output"]) == {"answer"}


def test_another_users_deployment_is_not_found(api, other_api, user, other_user):
    provider = make_provider(user, "http://provider.invalid/v1")
    api.post(
        "/api/deployments/", {"name": "mine", "run": make_run(user, provider).pk}, format="json"
    )
    for method, path, body in (
        ("get", "", None),
        ("delete", "", None),
        ("post", "predict/", {"input": FRANCE}),
        ("post", "switch/", {"run": 1}),
        ("post", "rollback/", None),
        ("get", "history/", None),
        ("get", "usage/", None),
        ("get", "batches/", None),
        ("post", "batches/", {"dataset": 1}),
    ):
        response = getattr(other_api, method)(f"/api/deployments/mine/{path}", body, format="json")
        assert response.status_code == 404, (method, path, response.status_code)
    assert other_api.get("/api/deployments/").json()["count"] == 0
    # The same name is free for someone else; their run, never another user's.
    other_run = make_run(other_user, make_provider(other_user, "http://provider.invalid/v1"))
    response = api.post("/api/deployments/", {"name": "x", "run": other_run.pk}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "run"
    response = other_api.post(
        "/api/deployments/", {"name": "mine", "run": other_run.pk}, format="json"
    )
    assert response.status_code == 201


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"input": {}}, [("input.query", "Field required")]),
        ({"input": {"query": 3}}, [("input.query", "Input should be a valid string")]),
        ({"input": "France"}, [("input", "Input should be a valid dictionary")]),
        (
            {"inputs": [FRANCE, {"query": "x", "extra": 1}]},
            [("inputs[1].extra", "Extra inputs are not permitted")],
        ),
        ({"inputs": []}, [("inputs", "give at least one input")]),
        (
            {"inputs": [FRANCE] * 101},
            [("inputs", "Ensure this field has no more than 100 elements.")],
        ),
        ({}, [("", "give either `input` or `inputs`")]),
        ({"input": FRANCE, "inputs": [FRANCE]}, [("", "give either `input` or `inputs`")]),
    ],
)
def test_inputs_are_checked_against_the_programs_input_model_field_by_field(
    api, user, body, expected
):
    provider = make_provider(
        user, "http://provider.invalid/v1"
    )  # never called: the input is refused
    api.post(
        "/api/deployments/", {"name": "cap", "run": make_run(user, provider).pk}, format="json"
    )
    response = api.post("/api/deployments/cap/predict/", body, format="json")
    assert response.status_code == 400
    errors = [(e["path"], e["message"]) for e in response.json()["errors"]]
    for path, message in expected:
        assert any(p == path and message.lower() in m.lower() for p, m in errors), errors


def test_names_are_slugs_unique_per_owner_and_bodies_are_depth_limited(api, user):
    run = make_run(user, make_provider(user, "http://provider.invalid/v1"))
    for name in ("has space", "é", "", "x" * 51):
        response = api.post("/api/deployments/", {"name": name, "run": run.pk}, format="json")
        assert response.status_code == 400
        assert response.json()["errors"][0]["path"] == "name"
    assert (
        api.post("/api/deployments/", {"name": "ok", "run": run.pk}, format="json").status_code
        == 201
    )
    again = api.post("/api/deployments/", {"name": "ok", "run": run.pk}, format="json")
    assert again.status_code == 400
    assert again.json()["errors"] == [
        {"path": "name", "message": "you already have a deployment named 'ok'"}
    ]
    both = api.post(
        "/api/deployments/",
        {"name": "b", "run": run.pk, "program_version": run.program_version_id},
        format="json",
    )
    assert both.status_code == 400 and both.json()["errors"][0]["path"] == ""
    deep: Any = FRANCE
    for _ in range(200):
        deep = {"a": deep}
    response = api.post("/api/deployments/ok/predict/", {"input": deep}, format="json")
    assert response.status_code == 400


def test_every_call_is_counted_in_the_deployments_usage(api, user, scripted_server):
    run = make_run(user, make_provider(user, scripted_server.base_url))
    api.post("/api/deployments/", {"name": "cap", "run": run.pk}, format="json")
    api.post("/api/deployments/cap/predict/", {"input": FRANCE}, format="json")
    answers(api, "cap")

    usage = api.get("/api/deployments/cap/").json()["usage"]
    assert usage["requests"] == 2 and usage["predictions"] == 1 + len(COUNTRIES)
    assert usage["lm_calls"] == 1 + len(COUNTRIES) and usage["failures"] == 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert usage["latency_s"] > 0 and usage["mean_latency_s"] == pytest.approx(
        usage["latency_s"] / usage["predictions"]
    )
    detail = api.get("/api/deployments/cap/usage/").json()
    assert detail["api"]["predictions"] == 7 and detail["batch"]["predictions"] == 0
    assert [(d["source"], d["predictions"]) for d in detail["days"]] == [("api", 7)]


def test_a_provider_that_fails_answers_502_with_its_reason(api, user):
    run = make_run(user, make_provider(user, "http://provider.invalid/v1"))
    api.post("/api/deployments/", {"name": "down", "run": run.pk}, format="json")
    response = api.post("/api/deployments/down/predict/", {"input": FRANCE}, format="json")
    assert response.status_code == 502
    assert response.json()["detail"]
    many = api.post("/api/deployments/down/predict/", {"inputs": [FRANCE, FRANCE]}, format="json")
    assert many.status_code == 200
    assert many.json()["outputs"] == [None, None]
    assert [e["path"] for e in many.json()["errors"]] == ["inputs[0]", "inputs[1]"]
    usage = api.get("/api/deployments/down/").json()["usage"]
    assert usage["predictions"] == 3 and usage["failures"] == 3


def test_deleting_a_deployment_frees_its_name(api, user):
    run = make_run(user, make_provider(user, "http://provider.invalid/v1"))
    api.post("/api/deployments/", {"name": "gone", "run": run.pk}, format="json")
    assert api.delete("/api/deployments/gone/").status_code == 204
    assert api.get("/api/deployments/gone/").status_code == 404
    assert (
        api.post("/api/deployments/", {"name": "gone", "run": run.pk}, format="json").status_code
        == 201
    )
