"""The runs table's columns and filters: program, dataset and optimizer names on each run;
filters on program, dataset and optimizer, scoped to the owner."""

from __future__ import annotations

from typing import Any

import pytest

from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = pytest.mark.django_db


def _run(owner: Any, version: Any, dataset: Any, optimizer: Any, name: str = "") -> Run:
    return Run.objects.create(
        owner=owner,
        name=name,
        program_version=version,
        dataset=dataset,
        compile_config={**COMPILE_CONFIG, "optimizer": optimizer},
        fit_config={"epochs": 1},
    )


@pytest.fixture
def runs(user) -> dict[str, Run]:
    capitals = make_version(user, name="Capitals")
    other_program = make_version(user, name="Summaries")
    dataset = make_dataset(user)
    second = make_dataset(user)
    second.name = "more capitals"
    second.save()
    return {
        "few_shot": _run(user, capitals, dataset, {"name": "random_few_shot", "params": {}}),
        "omega": _run(user, capitals, second, {"name": "omega", "params": {"population_size": 4}}),
        "named": _run(user, other_program, dataset, "OMEGA"),  # a bare name is allowed too
    }


def _ids(api: Any, query: str) -> set[int]:
    response = api.get(f"/api/runs/?{query}")
    assert response.status_code == 200, response.content
    return {r["id"] for r in response.json()["results"]}


def test_each_run_names_its_program_dataset_and_optimizer(api, runs):
    rows = {r["id"]: r for r in api.get("/api/runs/").json()["results"]}
    omega = rows[runs["omega"].pk]
    assert omega["program_name"] == "Capitals" and omega["version_number"] == 1
    assert omega["dataset_name"] == "more capitals"
    # As the catalogue names them, whatever spelling the config used.
    assert omega["optimizer"] == "OMEGA"
    assert rows[runs["named"].pk]["optimizer"] == "OMEGA"
    assert rows[runs["few_shot"].pk]["optimizer"] == "RandomFewShot"
    detail = api.get(f"/api/runs/{runs['omega'].pk}/").json()
    assert detail["program_name"] == "Capitals" and detail["optimizer"] == "OMEGA"


def test_filter_on_optimizer_program_and_dataset(api, runs):
    both = {runs["omega"].pk, runs["named"].pk}
    assert _ids(api, "optimizer=omega") == both
    assert _ids(api, "optimizer=OMEGA") == both
    # The catalogue's name finds runs configured with the snake_case one, and back.
    assert _ids(api, "optimizer=RandomFewShot") == {runs["few_shot"].pk}
    assert _ids(api, "optimizer=random_few_shot") == {runs["few_shot"].pk}
    assert _ids(api, "optimizer=nothing") == set()
    capitals = runs["omega"].program_version.program_id
    assert _ids(api, f"program={capitals}") == {runs["few_shot"].pk, runs["omega"].pk}
    assert _ids(api, f"dataset={runs['omega'].dataset_id}") == {runs["omega"].pk}
    combined = f"program={capitals}&optimizer=omega&dataset={runs['few_shot'].dataset_id}"
    assert _ids(api, combined) == set()


def test_filters_stay_within_the_owners_runs(api, other_api, other_user, runs):
    theirs = _run(other_user, make_version(other_user), make_dataset(other_user), {"name": "omega"})
    assert _ids(api, "optimizer=omega") == {runs["omega"].pk, runs["named"].pk}
    assert _ids(other_api, "optimizer=omega") == {theirs.pk}
    # Another user's dataset is no valid choice (400), as a missing one.
    assert other_api.get(f"/api/runs/?dataset={runs['omega'].dataset_id}").status_code == 400
    assert _ids(other_api, f"program={runs['omega'].program_version.program_id}") == set()


def test_an_unknown_optimizer_name_is_shown_as_it_is(api, user):
    run = _run(user, make_version(user), make_dataset(user), {"name": "my.package.Optimizer"})
    assert api.get(f"/api/runs/{run.pk}/").json()["optimizer"] == "my.package.Optimizer"
    assert _ids(api, "optimizer=my.package.Optimizer") == {run.pk}


def test_the_list_costs_a_fixed_number_of_queries(api, runs, django_assert_max_num_queries):
    for _ in range(5):
        _run(runs["omega"].owner, runs["omega"].program_version, runs["omega"].dataset, "omega")
    with django_assert_max_num_queries(6):
        assert api.get("/api/runs/").status_code == 200
