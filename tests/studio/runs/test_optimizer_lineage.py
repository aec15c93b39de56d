"""GET /api/runs/{id}/lineage/: an OMEGA run's candidates, parents, crossovers and survivors."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from studio.runs import services
from studio.runs.models import Run, RunEvent
from studio.runs.training import execute_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

# Crossover probability is merging_rate * epoch: every step of the second epoch crosses over.
OMEGA = {"name": "omega", "params": {"population_size": 3, "merging_rate": 1.0, "seed": 0}}
FIT = {"epochs": 2, "batch_size": 8, "evaluations": 1, "seed": 0}


@pytest.fixture
def omega_run(user: Any, scripted_server: Any) -> Run:
    from optimizer_core.testing.scripted_server import schema_filler
    from optimizer_core.testing.students import capitals_task
    from studio.providers.models import Provider

    _, _, student = capitals_task()
    rules = itertools.count()

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        """The student for the task; new instructions for each mutation and crossover."""
        schema = request["response_format"]["json_schema"]["schema"]
        if set(schema.get("properties", {})) == {"answer"}:
            return student.from_request(request)
        return {**schema_filler(schema), "instructions": f"Name the city only, rule {next(rules)}."}

    scripted_server.responder = respond
    Provider.objects.create(
        owner=user, name="embeddings", kind=Provider.Kind.EMBEDDING, model="openai/embed",
        api_base=scripted_server.base_url, params={"max_retries": 1, "backoff_base": 0.01},
    )  # fmt: skip
    run = services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, scripted_server.base_url),
        compile_config={**COMPILE_CONFIG, "optimizer": OMEGA},
        fit_config=FIT,
    )
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    return run


def test_the_lineage_of_an_omega_run_has_its_crossovers_survivors_and_best(api, omega_run):
    response = api.get(f"/api/runs/{omega_run.pk}/lineage/")
    assert response.status_code == 200
    body = response.json()
    assert body["run"] == omega_run.pk and body["optimizer"] == "omega"
    (variable,) = body["variables"]
    state = omega_run.trained_document["variables"][variable["name"]]
    nodes = {n["id"]: n for n in variable["nodes"]}
    proposals = RunEvent.objects.filter(
        run=omega_run, kind="optimizer", payload__event="candidate"
    ).count()
    assert len(nodes) == 1 + proposals == 1 + 2 * 4  # 32 training rows, batches of 8

    (root,) = [n for n in nodes.values() if not n["parents"]]
    assert root["operation"] == "init" and root["value"]["instructions"] is not None
    for node in nodes.values():
        assert all(p in nodes for p in node["parents"])
        assert node["operation"] in ("init", "mutation", "crossover")
    crossovers = [n for n in nodes.values() if n["operation"] == "crossover"]
    assert crossovers and all(n["epoch"] == 1 for n in crossovers)
    for node in crossovers:
        assert len(set(node["parents"])) == 2
        drawn = [e for e in variable["edges"] if e["target"] == node["id"]]
        assert sorted(e["source"] for e in drawn) == sorted(node["parents"])
        assert all(e["crossover"] for e in drawn)
        assert [c["parent"] for c in node["comparisons"]] == node["parents"]
    assert len(variable["edges"]) == sum(len(n["parents"]) for n in nodes.values())

    # Survivors: the population training ended with; the best: the candidate it ended with.
    survivors = {n["id"] for n in nodes.values() if n["in_population"]}
    assert survivors == {c["id"] for c in state["best_candidates"]}
    assert variable["best"] == state["current_candidate"]
    assert [n["id"] for n in nodes.values() if n["best"]] == [state["current_candidate"]]
    assert all(nodes[i]["score"] is not None for i in survivors), "DNS scored them"
    assert all(n["dropped_at"] in (0, 1) for n in nodes.values() if n["id"] not in survivors)

    # Won / lost rows against the parent, on rows both were scored on, with their text.
    assert root["rows_scored"] == 32
    compared = [c for n in nodes.values() for c in n["comparisons"] if c["shared"]]
    assert compared
    for comparison in compared:
        outcomes = comparison["won"] + comparison["lost"]
        assert comparison["shared"] == len(outcomes) + comparison["tied"]
        assert all(o["reward"] > o["parent_reward"] for o in comparison["won"])
        assert all(o["reward"] < o["parent_reward"] for o in comparison["lost"])
    named = {o["row"] for c in compared for o in c["won"] + c["lost"]}
    previews = {r["index"]: r for r in body["rows"]}
    assert set(previews) == named
    assert all("capital" in r["input"] and "answer" in r["expected"] for r in previews.values())


def test_another_users_run_has_no_lineage_to_show(api, other_api, user):
    run = Run.objects.create(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        compile_config=COMPILE_CONFIG,
        fit_config=FIT,
    )
    assert other_api.get(f"/api/runs/{run.pk}/lineage/").status_code == 404
    empty = api.get(f"/api/runs/{run.pk}/lineage/").json()
    assert empty == {"run": run.pk, "optimizer": "random_few_shot", "variables": [], "rows": []}


def test_a_seeded_runs_lineage_is_read_from_its_stored_events_alone(api, user):
    from tests.studio.runs.lineage_seed import seed_omega_run

    run = seed_omega_run(user)  # what the browser test shows
    (variable,) = api.get(f"/api/runs/{run.pk}/lineage/").json()["variables"]
    operations = [n["operation"] for n in variable["nodes"]]
    assert operations[0] == "init" and len(operations) == 1 + 3 * 4
    assert operations.count("crossover") >= 4
    assert (
        variable["best"] == run.trained_document["variables"][variable["name"]]["current_candidate"]
    )
    assert sum(e["crossover"] for e in variable["edges"]) == 2 * operations.count("crossover")
