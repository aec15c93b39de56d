"""Lineage: an optimizer's events rebuild each variable's DAG of candidates."""

from __future__ import annotations

import itertools
from typing import Any

import optimizer_core as synalinks
from optimizer_core.optimizers import OMEGA, RandomFewShot
from optimizer_core.optimizers.lineage import Lineage, RowOutcome
from tests.support import build_program, capitals


class Recorder(synalinks.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> None:
        # A deep enough copy: the optimizer keeps crediting the candidates it emitted.
        self.events.append((event, _copy(payload or {})))


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def rewriting_lm() -> synalinks.FakeLanguageModel:
    """Mutations and crossovers that each write new instructions."""
    counter = itertools.count()

    def responder(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        return {"thinking": "", "instructions": f"Answer with the bare name, rule {next(counter)}."}

    return synalinks.FakeLanguageModel(responder=responder)


async def fit_omega(**fit: Any) -> tuple[synalinks.Program, Recorder, int]:
    x, y, student = capitals(16)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(),
        # Crossover probability is merging_rate * epoch: every step from epoch 1 on.
        optimizer=OMEGA(
            language_model=rewriting_lm(),
            embedding_model=synalinks.FakeEmbeddingModel(),
            population_size=3,
            merging_rate=1.0,
            seed=0,
        ),
    )
    recorder = Recorder()
    await program.fit(x=x, y=y, batch_size=4, verbose=0, callbacks=[recorder], seed=0, **fit)
    return program, recorder, len(x)


async def test_an_omega_fit_emits_events_that_rebuild_the_whole_dag_with_crossovers() -> None:
    program, recorder, rows = await fit_omega(epochs=3)
    variable = program.trainable_variables[0]
    lineage = Lineage.from_events(recorder.events)
    assert lineage.variables == [variable.name]
    nodes = lineage.nodes(variable.name)
    by_id = {n.id: n for n in nodes}
    proposals = [p for e, p in recorder.events if e == "candidate"]
    assert len(nodes) == 1 + len(proposals) == 13

    (root,) = [n for n in nodes if not n.parents]
    assert root is nodes[0] and root.operation == "init"
    assert root.value is not None and set(root.value) == {"instructions", "examples"}
    seen: set[str] = set()
    for node in nodes:
        # Every parent is a described candidate that came before its child.
        assert all(p in seen for p in node.parents), node
        assert node.operation != "unknown" and node.value is not None
        seen.add(node.id)
    crossovers = [n for n in nodes if n.operation == "crossover"]
    assert crossovers, "merging_rate=1 crosses over from the second epoch"
    assert all(len(set(n.parents)) == 2 for n in crossovers)
    assert all(len(n.parents) == 1 for n in nodes if n.operation == "mutation")
    assert {n.epoch for n in crossovers} <= {1, 2}

    # The population at the end is what the last competition kept, DNS scores included.
    population = {c["id"] for c in variable.get("best_candidates")}
    assert {n.id for n in nodes if n.in_population} == population
    last = [p for e, p in recorder.events if e == "population"][-1]
    assert set(last["kept"]) == population
    for candidate_id in last["dropped"]:
        assert by_id[candidate_id].dropped_at == 2 and not by_id[candidate_id].in_population
    assert all(by_id[i].score is not None for i in population)

    # Rows: each proposal's minibatch, each batch's rows with the candidate that predicted it.
    for payload in proposals:
        node = by_id[payload["candidate"]["id"]]
        # A minibatch of 4; racing stops a hopeless proposal after its first 2 rows.
        scored = 2 if payload.get("stopped_early") else 4
        assert len(payload["rows"]) == len(payload["rewards"]) == scored
        assert all(0 <= r < rows for r in payload["rows"])
        # Its score: paired with the incumbent's known rows (its reward where unknown).
        incumbent = payload.get("incumbent")
        expected = sum(payload["rewards"]) / scored
        if incumbent is not None:
            base = [incumbent["reward"] if b is None else b for b in incumbent["rewards"]]
            gain = sum(c - b for c, b in zip(payload["rewards"], base, strict=True)) / scored
            expected = min(1.0, max(0.0, incumbent["reward"] + gain))
        assert abs(payload["candidate"]["reward"] - expected) < 1e-9
        assert set(payload["rows"]) <= set(node.rows)
    batches = [p for e, p in recorder.events if e == "batch_scored"]
    assert len(batches) == 3 * 4
    assert {r for p in batches[:4] for r in p["rows"]} == set(range(rows)), "epoch 0 covers x"
    assert set(root.rows) == set(range(rows))

    # A first child of the root is compared with it on the rows both were scored on.
    child = next(n for n in nodes if n.parents == [root.id])
    (comparison,) = lineage.comparisons(variable.name, child.id)
    assert comparison.parent == root.id and comparison.shared == len(set(child.rows))
    assert comparison.shared == len(comparison.won) + len(comparison.lost) + comparison.tied
    crossover_comparisons = lineage.comparisons(variable.name, crossovers[0].id)
    assert [c.parent for c in crossover_comparisons] == crossovers[0].parents


async def test_with_validation_rows_candidates_are_scored_on_them_and_batches_on_training_rows():
    _, recorder, rows = await fit_omega(epochs=1, validation_split=0.25)
    train_rows = 12
    assert {"candidate", "batch_scored"} <= {event for event, _ in recorder.events}
    for event, payload in recorder.events:
        if event == "candidate":
            assert all(train_rows <= r < rows for r in payload["rows"])
        if event == "batch_scored":
            assert all(0 <= r < train_rows for r in payload["rows"])


async def test_random_few_shot_reports_its_trims_and_merged_twins() -> None:
    x, y, student = capitals(12)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    # One example out of few predictions: twins (identical proposals) are bound to happen.
    program.compile(
        reward=synalinks.rewards.ExactMatch(),
        optimizer=RandomFewShot(nb_min_examples=1, nb_max_examples=1, population_size=2, seed=0),
    )
    recorder = Recorder()
    await program.fit(x=x, y=y, epochs=3, batch_size=4, verbose=0, callbacks=[recorder], seed=0)
    variable = program.trainable_variables[0]
    lineage = Lineage.from_events(recorder.events)
    nodes = lineage.nodes(variable.name)
    assert [n.operation for n in nodes[:1]] == ["init"]
    assert all(n.operation == "few_shot" and len(n.parents) == 1 for n in nodes[1:])
    population = {c["id"] for c in variable.get("best_candidates")}
    assert {n.id for n in nodes if n.in_population} == population
    merged = [n for n in nodes if n.merged_into]
    assert merged and all(not n.in_population for n in merged)
    assert all(lineage.node(variable.name, n.merged_into) is not None for n in merged)
    populations = [p for e, p in recorder.events if e == "population"]
    assert all(len(p["kept"]) <= 2 for p in populations)
    assert all(
        lineage.node(variable.name, i).dropped_at is not None
        for p in populations
        for i in p["dropped"]
    )


def test_comparisons_count_rows_won_lost_and_tied_on_shared_rows_only() -> None:
    events = [
        ("initial", {"variable": "v", "candidate": {"id": "v#1", "parents": [], "operation": "init", "value": {"instructions": "a"}}}),
        ("batch_scored", {"candidates": {"v": "v#1"}, "rows": [0, 1, 2, 3], "rewards": [1.0, 0.0, 0.5, 0.0]}),
        ("batch_scored", {"candidates": {"v": "v#1"}, "rows": [2], "rewards": [1.0]}),
        ("candidate", {"variable": "v", "candidate": {"id": "v#2", "parents": ["v#1"], "operation": "mutation", "reward": 0.5, "value": {"instructions": "b"}}, "rows": [1, 2, 3, 9], "rewards": [1.0, 0.0, 0.0, 1.0]}),
        ("candidate", {"variable": "v", "candidate": {"id": "v#3", "parents": ["v#2", "v#0"], "operation": "crossover", "reward": 1.0, "value": {"instructions": "b"}}, "rows": [9], "rewards": [1.0], "merged_into": "v#2"}),
        ("population", {"variable": "v", "epoch": 0, "population": [{"id": "v#2", "reward": 0.6, "score": 1.0}, {"id": "v#1", "reward": 0.4, "score": 0.25}], "kept": ["v#2"], "dropped": ["v#1"]}),
    ]  # fmt: skip
    lineage = Lineage.from_events(events)
    assert [n.id for n in lineage.nodes("v")] == ["v#1", "v#2", "v#0", "v#3"]
    first, second, unknown, twin = lineage.nodes("v")
    assert first.rows == {0: 1.0, 1: 0.0, 2: 0.75, 3: 0.0}
    assert (first.dropped_at, first.in_population, first.score) == (0, False, 0.25)
    assert (second.reward, second.score, second.in_population) == (0.6, 1.0, True)
    assert unknown.operation == "unknown" and unknown.value is None
    assert twin.merged_into == "v#2" and not twin.in_population
    assert second.rows[9] == 1.0, "a twin's rows count for the candidate it merged into"
    (comparison,) = lineage.comparisons("v", "v#2")
    assert comparison.shared == 3 and comparison.tied == 1
    assert comparison.won == [RowOutcome(1, 1.0, 0.0)]
    assert comparison.lost == [RowOutcome(2, 0.0, 0.75)]
    assert [(c.parent, c.shared) for c in lineage.comparisons("v", "v#3")] == [
        ("v#2", 1),
        ("v#0", 0),
    ]
