"""GET /api/runs/{id}/variables/: each trainable variable before and after training."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

TRAINED_INSTRUCTIONS = "Answer with the capital's name only."
EXAMPLE = {"inputs": {"query": "Capital of France?"}, "outputs": {"answer": "Paris"}}


def trained(document: dict[str, Any]) -> dict[str, Any]:
    """The document as an optimizer would leave it: new instructions, one example."""
    out = copy.deepcopy(document)
    (state,) = out["variables"].values()  # the one Generator's
    state["instructions"] = TRAINED_INSTRUCTIONS
    state["examples"] = [{**EXAMPLE, "reward": 1.0}]
    state["candidates"] = [{"instructions": "not trainable bookkeeping"}]
    return out


def make_run(user: Any, **fields: Any) -> Run:
    return Run.objects.create(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
        **fields,
    )


@pytest.mark.django_db
def test_a_trained_run_shows_each_variable_before_and_after(api, user) -> None:
    run = make_run(user, state=Run.State.SUCCEEDED)
    run.trained_document = trained(run.program_version.document)
    run.save()

    response = api.get(f"/api/runs/{run.pk}/variables/")

    assert response.status_code == 200
    (variable,) = response.json().values()
    assert variable["before"]["examples"] == []
    assert variable["before"]["instructions"].startswith("Your task is to answer")
    assert variable["after"]["instructions"] == TRAINED_INSTRUCTIONS
    assert [e["outputs"] for e in variable["after"]["examples"]] == [{"answer": "Paris"}]
    assert "candidates" not in variable["after"]  # only what an optimizer trains


@pytest.mark.django_db
def test_a_fork_starts_from_its_initial_document_and_has_no_after_until_trained(api, user) -> None:
    run = make_run(user)
    run.initial_document = trained(run.program_version.document)
    run.save()

    (variable,) = api.get(f"/api/runs/{run.pk}/variables/").json().values()

    assert variable["before"]["instructions"] == TRAINED_INSTRUCTIONS
    assert variable["after"] is None


@pytest.mark.django_db
def test_another_users_run_is_not_found(other_api, user) -> None:
    run = make_run(user)
    assert other_api.get(f"/api/runs/{run.pk}/variables/").status_code == 404
