"""What decides in `fit`: scoring at a pinned temperature, and the start competing with the epochs."""

from __future__ import annotations

import json
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.optimizers.random_few_shot import RandomFewShot
from tests.support import Answer, Query, build_program

ROWS = [f"question {i}" for i in range(24)]


def rows(names: list[str]) -> tuple[list[Query], list[Answer]]:
    return [Query(query=q) for q in names], [Answer(answer=q.upper()) for q in names]


def recording_student(seen: list[tuple[str, float | None]]):
    """Right without examples, wrong with them; notes each call's row and temperature."""

    def respond(messages: list[dict[str, str]], schema: Any) -> dict[str, str]:
        query = json.loads(messages[-1]["content"])["query"]
        shown = "Examples:" in messages[0]["content"]
        return {"answer": "wrong" if shown else query.upper()}

    return respond


async def test_proposals_and_validation_are_scored_at_temperature_0_training_batches_are_not() -> (
    None
):
    lm = synalinks.FakeLanguageModel(responder=recording_student([]), temperature=0.8)
    program = await build_program(lm)
    program.compile(reward=synalinks.rewards.ExactMatch(), optimizer=RandomFewShot(seed=0))
    (x_train, y_train), (x_val, y_val) = rows(ROWS[:16]), rows(ROWS[16:])
    await program.fit(
        x_train, y_train, validation_data=(x_val, y_val), epochs=1, batch_size=8, seed=0, verbose=0
    )
    by_row: dict[str, set[float | None]] = {}
    for call in lm.calls:
        query = json.loads(call.messages[-1]["content"])["query"]
        by_row.setdefault(query, set()).add(call.temperature)
    assert all(by_row[q] == {0.8} for q in ROWS[:16]), "training batches sample as usual"
    assert all(by_row[q] == {0.0} for q in ROWS[16:] if q in by_row), "deciding calls at 0"


async def test_scoring_temperature_none_leaves_the_modules_own() -> None:
    lm = synalinks.FakeLanguageModel(responder=recording_student([]), temperature=0.8)
    program = await build_program(lm)
    program.compile(reward=synalinks.rewards.ExactMatch(), optimizer=RandomFewShot(seed=0))
    (x_train, y_train), (x_val, y_val) = rows(ROWS[:8]), rows(ROWS[16:20])
    await program.fit(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        batch_size=8,
        scoring_temperature=None,
        verbose=0,
    )
    assert {call.temperature for call in lm.calls} == {0.8}
    with pytest.raises(ValueError, match="`scoring_temperature`"):
        await program.fit(x_train, y_train, scoring_temperature=-1.0, verbose=0)


class AlwaysTakesTheNewest(RandomFewShot):
    """Writes in every proposal, whatever its score: what a noisy acceptance can do."""

    def write_best(self, variable: Any) -> None:
        population = variable.get("best_candidates") or []
        if population:
            newest = population[-1]
            variable.assign(newest["value"])
            variable.update({"current_candidate": newest["id"]})


async def test_a_fit_that_only_made_things_worse_on_validation_ends_where_it_started() -> None:
    lm = synalinks.FakeLanguageModel(responder=recording_student([]))
    program = await build_program(lm)
    program.compile(reward=synalinks.rewards.ExactMatch(), optimizer=AlwaysTakesTheNewest(seed=0))
    (x_train, y_train), (x_val, y_val) = rows(ROWS[:16]), rows(ROWS[16:])
    history = await program.fit(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        epochs=2,
        batch_size=8,
        seed=0,
        verbose=0,
        validate_start=True,
    )
    assert history.history["val_reward"] == [0.0, 0.0], "every epoch kept an example set"
    assert program.trainable_variables[0].get("examples") == [], "the start is restored"
    best = program.to_json()["fit_state"]["best"]
    assert best["epoch"] == -1 and best["score"] == 1.0
    after = await program.evaluate(x_val, y_val, verbose=0)
    assert after["reward"] == 1.0


async def test_without_validate_start_the_best_epoch_is_kept_and_no_start_pass_is_made() -> None:
    lm = synalinks.FakeLanguageModel(responder=recording_student([]))
    program = await build_program(lm)
    program.compile(reward=synalinks.rewards.ExactMatch(), optimizer=AlwaysTakesTheNewest(seed=0))
    (x_train, y_train), (x_val, y_val) = rows(ROWS[:16]), rows(ROWS[16:])
    await program.fit(
        x_train, y_train, validation_data=(x_val, y_val), epochs=1, batch_size=8, seed=0, verbose=0
    )
    assert program.trainable_variables[0].get("examples"), "the epoch's examples are kept"
    assert program.to_json()["fit_state"]["best"]["epoch"] == 0
    starts = [c for c in lm.calls if "Examples:" not in c.messages[0]["content"]]
    validated_plain = {json.loads(c.messages[-1]["content"])["query"] for c in starts}
    assert not validated_plain & set(ROWS[16:]), "no validation row was asked without examples"
    with pytest.raises(ValueError, match="`validate_start`"):
        await program.fit(x_train, y_train, validate_start="yes", verbose=0)  # type: ignore[arg-type]
