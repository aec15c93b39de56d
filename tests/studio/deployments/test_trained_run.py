"""A program trained for real, deployed: the deployment answers as the run's after-evaluation."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from studio.runs import services as run_services
from studio.runs.models import Run
from studio.runs.training import execute_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]


def test_a_trained_runs_program_answers_over_http_as_it_did_after_training(
    api, user, scripted_server, monkeypatch
):
    from studio.runs import tasks

    monkeypatch.setattr(tasks.run_training, "delay", lambda *args: None)
    run = run_services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user, rows=24, test_fraction=0.25),
        provider=make_provider(user, scripted_server.base_url),
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1, "batch_size": 6, "evaluations": 1, "seed": 0},
    )
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error

    response = api.post("/api/deployments/", {"name": "trained", "run": run.pk}, format="json")
    assert response.status_code == 201, response.json()

    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    examples = run.after["examples"]
    response = script.post(
        "/api/deployments/trained/predict/",
        {"inputs": [example["input"] for example in examples]},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["outputs"] == [example["output"] for example in examples]
    # Trained, it answers the bare city: the reward the run reached after training.
    rewards = [example["output"] == example["expected"] for example in examples]
    assert sum(rewards) / len(rewards) == pytest.approx(run.after["summary"]["reward"]["mean"])
    assert run.after["summary"]["reward"]["mean"] > run.before["summary"]["reward"]["mean"]
