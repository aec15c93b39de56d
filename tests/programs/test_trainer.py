"""fit / evaluate / predict, as the training guide and the semantics page describe them."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import (
    AuthenticationError,
    DataError,
    InvalidResponseError,
    ProgramError,
    RewardError,
)
from optimizer_core.programs import FailureRule
from optimizer_core.programs.candidate_scoring import CandidateMinibatch, ResultCache
from tests.support import Answer, Query, build_program, capitals


def compiled(program: synalinks.Program, **optimizer_kwargs) -> synalinks.Program:
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0, **optimizer_kwargs),
        metrics=[synalinks.metrics.F1Score(in_mask=["answer"])],
    )
    return program


async def test_validation_split_takes_the_last_fraction() -> None:
    x, y, student = capitals(15)
    lm = synalinks.FakeLanguageModel(responder=student)
    program = compiled(await build_program(lm))
    await program.fit(x=x, y=y, validation_split=0.2, epochs=1, batch_size=4, verbose=0)
    trained_on = {p["inputs"]["query"] for p in program.trainable_variables[0].get("predictions")}
    assert trained_on == {row.query for row in x[:12]}


async def test_history_has_training_and_validation_keys_per_epoch() -> None:
    x, y, student = capitals(20)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
        metrics=[
            synalinks.metrics.F1Score(in_mask=["answer"]),
            synalinks.metrics.F1Score(in_mask=["answer"]),
        ],
    )
    history = await program.fit(x=x, y=y, validation_split=0.25, epochs=3, batch_size=5, verbose=0)
    assert set(history.history) == {
        "reward", "f1_score", "f1_score_1", "val_reward", "val_f1_score", "val_f1_score_1",
    }  # fmt: skip
    assert all(len(values) == 3 for values in history.history.values())
    assert all(0.0 <= v <= 1.0 for values in history.history.values() for v in values)


async def test_random_few_shot_training_raises_the_reward() -> None:
    x, y, student = capitals(40)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    x_test, y_test = x[30:], y[30:]
    before = await program.evaluate(x=x_test, y=y_test, verbose=0)
    history = await program.fit(
        x=x[:30], y=y[:30], validation_split=0.2, epochs=4, batch_size=6, verbose=0, seed=1
    )
    after = await program.evaluate(x=x_test, y=y_test, verbose=0)
    examples = program.trainable_variables[0].get("examples")
    assert examples, "RandomFewShot should have written examples"
    assert all(e["outputs"] == student.solve(e["inputs"]) for e in examples), (
        "labelled examples show the expected answers"
    )
    assert after["reward"] > before["reward"] + 0.3
    assert history.history["val_reward"][-1] >= history.history["val_reward"][0]


async def test_examples_keep_changing_across_steps() -> None:
    """Candidates are keyed on their examples too, so new draws are not frozen out."""
    x, y, student = capitals(40)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    await program.fit(x=x, y=y, validation_split=0.25, epochs=2, batch_size=5, verbose=0, seed=2)
    population = program.trainable_variables[0].get("best_candidates")
    distinct = {str(c["value"]["examples"]) for c in population}
    assert len(distinct) > 3


async def test_shuffle_changes_the_order_between_epochs_and_is_seeded() -> None:
    async def order(shuffle: bool, seed: int) -> list[list[str]]:
        x, y, student = capitals(12)
        program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
        seen: list[list[str]] = []

        class Recorder(synalinks.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                predictions = program.trainable_variables[0].get("predictions")
                seen.append([p["inputs"]["query"] for p in predictions[-12:]])

        await program.fit(x=x, y=y, epochs=2, batch_size=1, shuffle=shuffle, seed=seed,
                          callbacks=[Recorder()], verbose=0)  # fmt: skip
        return seen

    unshuffled = await order(False, 0)
    assert unshuffled[0] == unshuffled[1]
    shuffled = await order(True, 0)
    assert shuffled[0] != shuffled[1]
    assert sorted(shuffled[0]) == sorted(shuffled[1])
    assert await order(True, 0) == shuffled


async def test_best_validation_candidate_is_left_in_the_variables() -> None:
    x, y, student = capitals(30)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    snapshots: list[tuple[float, dict]] = []

    class Snap(synalinks.callbacks.Callback):
        async def on_epoch_end(self, epoch, logs=None):
            snapshots.append(
                (logs["val_reward"], program.trainable_variables[0].get_trainable_json())
            )

    await program.fit(x=x, y=y, validation_split=0.3, epochs=3, batch_size=7, verbose=0,
                      callbacks=[Snap()], seed=5)  # fmt: skip
    best_reward, _ = max(snapshots, key=lambda s: s[0])
    final = program.trainable_variables[0].get_trainable_json()
    assert final == next(v for r, v in snapshots if r == best_reward)


async def test_predict_returns_none_for_failed_rows_and_counts_them() -> None:
    lm = synalinks.FakeLanguageModel(
        responses=[{"answer": "a"}, "nope", "nope", {"answer": "c"}],
        max_retries=1,
        backoff_base=0.0,
    )
    program = await build_program(lm)
    out = await program.predict(
        x=[Query(query="1"), Query(query="2"), Query(query="3")], batch_size=1, verbose=0
    )
    assert isinstance(out, np.ndarray) and out.dtype == object
    assert [o.answer if o is not None else None for o in out] == ["a", None, "c"]
    assert program.last_failures == 1


async def test_evaluate_reports_failures_and_scores_them_zero() -> None:
    lm = synalinks.FakeLanguageModel(
        responses=[{"answer": "Paris"}, "nope", "nope"], max_retries=1, backoff_base=0.0
    )
    program = compiled(await build_program(lm))
    logs = await program.evaluate(
        x=[Query(query="a"), Query(query="b")],
        y=[Answer(answer="Paris")] * 2,
        batch_size=1,
        verbose=0,
    )
    assert logs["reward"] == 0.5 and logs["failures"] == 1


async def test_a_model_that_always_fails_stops_training_with_its_error() -> None:
    lm = synalinks.FakeLanguageModel(
        responses=["garbage"], cycle=True, max_retries=1, backoff_base=0.0
    )
    program = compiled(await build_program(lm))
    x, y, _ = capitals(24)
    with pytest.raises(InvalidResponseError, match="10 predictions in a row failed"):
        await program.fit(x=x, y=y, batch_size=4, verbose=0)


async def test_a_refused_key_stops_at_once() -> None:
    lm = synalinks.FakeLanguageModel(responses=[AuthenticationError("bad key")], cycle=True)
    program = compiled(await build_program(lm))
    x, y, _ = capitals(8)
    with pytest.raises(AuthenticationError, match="bad key"):
        await program.fit(x=x, y=y, batch_size=4, verbose=0)
    assert len(lm.calls) <= 4


@pytest.mark.parametrize("split", [-0.1, 1.0, 1.5, "0.2"])
async def test_validation_split_out_of_range_is_refused(split) -> None:
    x, y, student = capitals(5)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    with pytest.raises(ValueError, match="validation_split"):
        await program.fit(x=x, y=y, validation_split=split, verbose=0)


async def test_bad_data_is_named() -> None:
    x, y, student = capitals(5)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    with pytest.raises(DataError, match="`x` is empty"):
        await program.fit(x=np.array([], dtype=object), y=np.array([], dtype=object), verbose=0)
    with pytest.raises(DataError, match="5 rows but `y` has 4"):
        await program.fit(x=x, y=y[:4], verbose=0)

    class Wrong(synalinks.DataModel):
        label: str

    with pytest.raises(DataError, match=r"y\[0\] has field\(s\) \['label'\]"):
        await program.fit(x=x[:1], y=[Wrong(label="z")], verbose=0)
    with pytest.raises(DataError, match=r"x\[1\] does not match .* Query"):
        await program.fit(x=[x[0], {"text": "?"}], y=y[:2], verbose=0)
    with pytest.raises(ValueError, match="batch_size"):
        await program.fit(x=x, y=y, batch_size=0, verbose=0)


async def test_a_reward_returning_a_string_is_named() -> None:
    @synalinks.saving.register_synalinks_serializable()
    async def stringly_reward(y_true, y_pred):
        return "0.5"

    x, y, student = capitals(4)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.MeanRewardWrapper(fn=stringly_reward), optimizer="random_few_shot"
    )
    with pytest.raises(RewardError, match="stringly_reward"):
        await program.fit(x=x, y=y, verbose=0)


async def test_fit_before_compile_is_explained() -> None:
    x, y, student = capitals(4)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    with pytest.raises(ProgramError, match="compile"):
        await program.fit(x=x, y=y, verbose=0)


async def test_stop_training_stops_at_the_next_batch() -> None:
    x, y, student = capitals(20)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    batches: list[int] = []

    class Stopper(synalinks.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            batches.append(batch)
            if batch == 1:
                program.stop_training = True

    history = await program.fit(x=x, y=y, epochs=3, batch_size=2, callbacks=[Stopper()], verbose=0)
    assert batches == [0, 1]
    assert len(history.history["reward"]) == 1


async def test_batches_run_concurrently_up_to_the_model_bound() -> None:
    x, y, student = capitals(16)
    lm = synalinks.FakeLanguageModel(responder=student, latency=0.02, max_concurrency=4)
    program = compiled(await build_program(lm))
    await program.evaluate(x=x, y=y, batch_size=16, verbose=0)
    assert lm.usage.max_in_flight == 4


async def test_optimizer_events_reach_callbacks() -> None:
    x, y, student = capitals(12)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    events: list[str] = []

    class Listener(synalinks.callbacks.Callback):
        def on_optimizer_event(self, event, payload):
            events.append(event)

    await program.fit(
        x=x, y=y, epochs=1, batch_size=4, validation_split=0.25, callbacks=[Listener()], verbose=0
    )
    assert "candidate" in events and events[-1] == "population"


async def test_scoring_a_candidate_never_writes_the_variable() -> None:
    x, y, student = capitals(8)
    lm = synalinks.FakeLanguageModel(responder=student, latency=0.01)
    program = compiled(await build_program(lm))
    variable = program.trainable_variables[0]
    minibatch = CandidateMinibatch(
        ResultCache(
            program.variables,
            lambda xs, ys, values: program._run_batch(
                xs, ys, training=False, in_a_row=FailureRule().count(), overrides=values
            ),
        ),
        list(zip(range(4), program._check_x(x, "x"), y, strict=False)),
    )
    values = minibatch.values_for({variable.name: {"instructions": "TRIAL", "examples": []}})
    task = asyncio.ensure_future(minibatch.score(values, range(4)))
    await asyncio.sleep(0.005)
    assert variable.get("instructions") != "TRIAL"  # what a concurrent batch would read
    await task
    assert variable.get("instructions") != "TRIAL"
    assert [c.messages[0]["content"] for c in lm.calls] == ["TRIAL"] * 4


async def test_candidate_scoring_overlaps_the_next_batch() -> None:
    """Batch k+1 is predicted while batch k's candidate is scored: one latency round per step."""
    x, y, student = capitals(20)
    lm = synalinks.FakeLanguageModel(responder=student, latency=0.05, max_concurrency=64)
    program = compiled(await build_program(lm))
    await program.fit(x=x, y=y, validation_split=0.2, epochs=1, batch_size=4, verbose=0)
    # 4 rows of the batch beside the minibatch rows of the steps before it: the first
    # two rows of one step's proposal, the other two of the step before (racing).
    assert 4 + 2 <= lm.usage.max_in_flight <= 4 + 2 + 2


async def test_every_sample_of_a_batch_sees_the_same_variables() -> None:
    """Candidates found while a batch is in flight do not leak into half of it."""
    x, y, student = capitals(30)
    seen: dict[str, str] = {}

    def recording(messages, schema):
        query = json.loads(messages[1]["content"])["query"]
        seen.setdefault(query, messages[0]["content"])  # validation rows come later
        return student(messages, schema)

    lm = synalinks.FakeLanguageModel(responder=recording, latency=0.01)
    program = compiled(await build_program(lm))
    batches: list[list[str]] = []

    class PerBatch(synalinks.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            predictions = program.trainable_variables[0].get("predictions")[-4:]
            batches.append([p["inputs"]["query"] for p in predictions])

    await program.fit(
        x=x, y=y, validation_split=0.2, epochs=1, batch_size=4, callbacks=[PerBatch()], verbose=0
    )
    prompts_per_batch = [{seen[q] for q in batch} for batch in batches]
    assert all(len(prompts) == 1 for prompts in prompts_per_batch)
    assert len({next(iter(p)) for p in prompts_per_batch}) > 1, "training changed the prompt"
