"""Honest statistics: per-row rewards before and after, pinned evaluations, verdicts in the API."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import FewShotStudent, capitals_task
from studio.runs import resources, services
from studio.runs.models import Run
from studio.runs.significance import resamples_for, rows_digest
from studio.runs.training import execute_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

FIT = {"epochs": 1, "batch_size": 10, "seed": 0}


def run_on(user: Any, server: ScriptedServer, dataset: Any, **fit: Any) -> Run:
    run = services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=dataset,
        provider=make_provider(user, server.base_url),
        compile_config=COMPILE_CONFIG,
        fit_config={**FIT, **fit},
    )
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    return run


def always_right() -> FewShotStudent:
    """A student that answers every row right, trained or not: training changes nothing."""
    _, _, student = capitals_task()
    return FewShotStudent(solve=student.solve, corrupt=student.corrupt, base_skill=1.0)


def test_each_test_rows_reward_is_stored_before_and_after_in_row_order(user, scripted_server):
    dataset = make_dataset(user, rows=40, test_fraction=0.5)
    run = run_on(user, scripted_server, dataset)

    x_test, y_test = resources.load_examples(dataset, split="test")
    assert len(run.before_rewards) == len(run.after_rewards) == len(x_test) == 20
    for phase, rewards in (("before", run.before_rewards), ("after", run.after_rewards)):
        stored = getattr(run, phase)["examples"]
        assert [e["input"] for e in stored] == x_test
        assert [e["expected"] for e in stored] == y_test
        assert rewards == [e["reward"] for e in stored]
    assert run.test_rows_digest == rows_digest(x_test, y_test)


def test_evaluations_are_pinned_to_temperature_0_and_the_runs_seed_and_run_once(
    user, scripted_server
):
    dataset = make_dataset(user, rows=40, test_fraction=0.5)
    run = run_on(user, scripted_server, dataset, evaluations=3, seed=11)

    assert len(run.before["runs"]) == len(run.after["runs"]) == 1  # a repeat would say nothing
    requests = list(scripted_server.stats.requests)
    # 20 test rows before, 20 training rows, candidates..., 20 test rows after.
    evaluation = requests[:20] + requests[-20:]
    assert {(r.get("temperature"), r.get("seed")) for r in evaluation} == {(0.0, 11)}
    training = requests[20:-20]
    assert training and all("seed" not in r for r in training)
    # Training batches sample at the model's own temperature; the calls that decide (a
    # candidate's minibatch, validation) are pinned to 0 by fit's scoring_temperature.
    temperatures = {r.get("temperature") for r in training}
    assert temperatures == {None, 0.0}, temperatures


def test_above_temperature_0_evaluations_repeat_and_store_each_rows_mean(user, allow_outgoing):
    _, _, student = capitals_task()
    coin = random.Random(0)  # a sampling model: the same row may score differently each time

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        inputs = json.loads(request["messages"][-1]["content"])
        answer = student.solve(inputs)
        return answer if coin.random() < 0.5 else student.corrupt(inputs, answer)

    dataset = make_dataset(user, rows=40, test_fraction=0.5)
    with ScriptedServer(respond) as server:
        allow_outgoing(server)
        run = run_on(user, server, dataset, evaluations=2, evaluation_temperature=0.7)
        first = server.stats.requests[0]

    assert (first.get("temperature"), first.get("seed")) == (0.7, None)
    assert len(run.before["runs"]) == len(run.after["runs"]) == 2
    assert len(run.before_rewards) == 20
    assert all(reward in (0.0, 0.5, 1.0) for reward in run.before_rewards)
    means = [evaluation["reward"] for evaluation in run.before["runs"]]
    assert sum(run.before_rewards) / 20 == pytest.approx(sum(means) / 2)


def test_the_run_detail_says_significant_gain_when_training_clearly_helps(
    api, user, scripted_server
):
    run = run_on(user, scripted_server, make_dataset(user, rows=40, test_fraction=0.5))

    gain = api.get(f"/api/runs/{run.pk}/").json()["gain"]

    assert gain["verdict"] == "significant gain", gain
    assert gain["n"] == 20
    assert gain["mean_after"] > gain["mean_before"]
    assert 0 < gain["ci_low"] <= gain["difference"] <= gain["ci_high"]
    assert gain["p_value"] < 0.05
    assert gain["sentence"].startswith("significant gain at n=20")
    # The run stored its verdict when it ended: the runs list shows the same one, and
    # reads no per-row rewards for it.
    (listed,) = api.get("/api/runs/").json()["results"]
    assert listed["gain"] == gain


def test_the_run_detail_says_no_detectable_change_and_the_rows_needed(api, user, allow_outgoing):
    with ScriptedServer(always_right().from_request) as server:
        allow_outgoing(server)
        run = run_on(user, server, make_dataset(user, rows=40, test_fraction=0.5))

    gain = api.get(f"/api/runs/{run.pk}/").json()["gain"]

    assert gain["verdict"] == "no detectable change"
    assert gain["n"] == 20 and gain["difference"] == 0.0
    assert gain["target"] == 0.05 and gain["rows_needed"] > 20
    assert f"you need about {gain['rows_needed']} rows to see a gain of 0.05" in gain["sentence"]


def test_a_run_without_per_row_rewards_has_no_gain(api, user, scripted_server):
    run = run_on(user, scripted_server, make_dataset(user))
    # A run from before they were kept (so it stored no verdict either).
    Run.objects.filter(pk=run.pk).update(before_rewards=None, gain=None)

    assert api.get(f"/api/runs/{run.pk}/").json()["gain"] is None


def test_compare_pairs_two_runs_on_the_same_test_rows(api, user, scripted_server):
    dataset = make_dataset(user, rows=40, test_fraction=0.5)
    first = run_on(user, scripted_server, dataset)
    second = run_on(user, scripted_server, dataset)
    # The second run's trained program answered worse on three rows.
    worse = list(second.after_rewards)
    for row in (0, 1, 2):
        worse[row] = 0.0
    Run.objects.filter(pk=second.pk).update(after_rewards=worse)

    body = api.get(f"/api/runs/compare/?ids={first.pk},{second.pk}").json()
    one, two = body["runs"]

    assert one["versus"] is None
    assert one["gain"]["verdict"] == "significant gain"
    versus = two["versus"]
    assert versus["baseline"] == first.pk and versus["paired"] is True
    assert versus["comparison"]["n"] == 20
    assert versus["comparison"]["difference"] == pytest.approx(versus["difference"])
    assert versus["comparison"]["verdict"] == "no detectable change"
    # Each example (from the run's examples endpoint) carries its row's reward before and
    # after training.
    example = api.get(f"/api/runs/{second.pk}/examples/").json()["results"][0]
    assert example["before_reward"] == second.before_rewards[0]
    assert example["after_reward"] == 0.0


def test_compare_does_not_pair_runs_on_different_datasets(api, user, scripted_server):
    first = run_on(user, scripted_server, make_dataset(user, rows=40, test_fraction=0.5))
    second = run_on(user, scripted_server, make_dataset(user, rows=40, test_fraction=0.5))

    versus = api.get(f"/api/runs/compare/?ids={first.pk},{second.pk}").json()["runs"][1]["versus"]

    assert versus["paired"] is False and versus["comparison"] is None
    assert "different datasets" in versus["reason"]
    assert versus["difference"] is not None  # the unpaired difference of the means


def test_resamples_shrink_for_large_evaluations() -> None:
    assert resamples_for(40) == 10_000
    assert resamples_for(10_000) == 1_000


def test_a_run_records_its_dataset_version_and_trains_on_its_rows(api, user, scripted_server):
    from studio.datasets import versions

    dataset = make_dataset(user, rows=40, test_fraction=0.5)
    second = versions.create_version(
        dataset,
        add=[{"input": {"query": "What is the capital of Peru?"}, "output": {"answer": "Lima"}}],
        remove=[1],
    )
    run = run_on(user, scripted_server, dataset)  # no version given: the latest

    assert run.dataset_version_id == second.pk
    x_test, y_test = resources.load_examples(dataset, split="test", version=second)
    assert [e["input"] for e in run.after["examples"]] == x_test
    assert run.test_row_keys == resources.row_keys(x_test, y_test)
    assert api.get(f"/api/runs/{run.pk}/").json()["dataset_version"] == 2

    pinned = services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=dataset,
        dataset_version=1,
        provider=make_provider(user, scripted_server.base_url),
        compile_config=COMPILE_CONFIG,
        fit_config=FIT,
    )
    assert pinned.dataset_version.number == 1


def test_compare_pairs_runs_on_two_versions_on_the_test_rows_they_share(api, user, scripted_server):
    from studio.datasets import versions

    dataset = make_dataset(user, rows=40, test_fraction=0.5)
    first = run_on(user, scripted_server, dataset)
    test_ids = [r.row_id for r in versions.iter_rows(versions.first_version(dataset), split="test")]
    versions.create_version(
        dataset,
        add=[
            {
                "input": {"query": f"What is the capital of {c}?"},
                "output": {"answer": a},
                "split": "test",
            }
            for c, a in (("Peru", "Lima"), ("Chile", "Santiago"))
        ],
        remove=test_ids[:3],
        edit=[{"row_id": test_ids[3], "output": {"answer": "Nowhere"}}],
    )
    second = run_on(user, scripted_server, dataset)

    versus = api.get(f"/api/runs/compare/?ids={first.pk},{second.pk}").json()["runs"][1]["versus"]

    assert len(first.after_rewards) == 20 and len(second.after_rewards) == 19
    assert versus["paired"] is True and versus["rows"] == 16  # 20 - 3 removed - 1 edited
    assert versus["comparison"]["n"] == 16
    assert versus["test_versions"] == {"baseline": 1, "run": 2}
    assert "different test versions (v1 and v2)" in versus["note"]
    assert "16 test rows" in versus["note"]
