"""The errors run services raise, through a real endpoint: status and body."""

from __future__ import annotations

import pytest

from studio.common.exceptions import Conflict
from studio.runs.exceptions import InvalidTransition
from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db


def _rows(user):
    return {
        "program_version": make_version(user),
        "dataset": make_dataset(user),
        "provider": make_provider(user, "http://provider.invalid/v1"),
    }


def test_invalid_transition_answers_409_at_state(api, user):
    assert issubclass(InvalidTransition, Conflict) and InvalidTransition.status == 409
    run = Run.objects.create(
        owner=user, compile_config=COMPILE_CONFIG, fit_config={}, state=Run.State.SUCCEEDED,
        **_rows(user),
    )  # fmt: skip
    response = api.post(f"/api/runs/{run.pk}/cancel/")
    assert response.status_code == 409
    assert response.json() == {"state": [f"run {run.pk} is succeeded: it cannot be cancelled"]}


def test_a_refused_configuration_answers_400_keyed_by_its_path(api, user):
    # A RunConfigError at a field path (studio.runs.config) is answered keyed by that path.
    body = {key: row.pk for key, row in _rows(user).items()}
    body["compile_config"] = {**COMPILE_CONFIG, "reward": "exact_matsh"}
    response = api.post("/api/runs/", body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["compile_config.reward.name"]
    assert "unknown" in response.json()["compile_config.reward.name"][0]
