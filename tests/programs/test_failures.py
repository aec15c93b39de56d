"""The failure rule: when predictions failing because of the model stop `fit` and `evaluate`."""

from __future__ import annotations

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import InvalidResponseError, RateLimitError
from optimizer_core.programs import FailureRule
from tests.support import Answer, Query, build_program, capitals


def compiled(program: synalinks.Program) -> synalinks.Program:
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    return program


def failing_model(**kwargs) -> synalinks.FakeLanguageModel:
    """A model whose every answer is unreadable: each call fails after its one retry."""
    return synalinks.FakeLanguageModel(
        responses=["garbage"], cycle=True, max_retries=1, backoff_base=0.0, **kwargs
    )


async def test_a_small_evaluation_on_a_dead_model_reports_its_failures_by_default() -> None:
    program = compiled(await build_program(failing_model()))
    x, y, _ = capitals(3)
    logs = await program.evaluate(x=x, y=y, batch_size=3, verbose=0)
    assert logs["failures"] == 3 and logs["reward"] == 0.0


async def test_whole_batch_stops_an_evaluation_on_its_first_batch_that_failed() -> None:
    lm = failing_model()
    program = compiled(await build_program(lm))
    x, y, _ = capitals(12)
    with pytest.raises(InvalidResponseError, match="3 predictions in a row failed; last error"):
        await program.evaluate(
            x=x, y=y, batch_size=3, verbose=0, failure_rule=FailureRule(whole_batch=True)
        )
    assert len(lm.calls) == 3 * 2  # the first batch, each row's call and its retry


async def test_whole_batch_lets_a_batch_with_one_answer_through() -> None:
    answers = [{"answer": "Paris"}] + ["garbage"] * 4
    lm = synalinks.FakeLanguageModel(responses=answers, max_retries=1, backoff_base=0.0)
    program = compiled(await build_program(lm))
    logs = await program.evaluate(
        x=[Query(query="France?"), Query(query="Peru?"), Query(query="Chad?")],
        y=[Answer(answer="Paris")] * 3,
        batch_size=3,
        verbose=0,
        failure_rule=FailureRule(whole_batch=True),
    )
    assert logs["failures"] == 2


async def test_the_count_in_a_row_spans_batches_and_is_the_rules() -> None:
    program = compiled(await build_program(failing_model()))
    x, y, _ = capitals(8)
    with pytest.raises(InvalidResponseError, match="4 predictions in a row failed"):
        await program.evaluate(
            x=x, y=y, batch_size=2, verbose=0, failure_rule=FailureRule(consecutive=4)
        )


async def test_fit_takes_the_rule_too() -> None:
    x, y, _ = capitals(8)
    program = compiled(await build_program(failing_model()))
    with pytest.raises(InvalidResponseError, match="4 predictions in a row failed"):
        await program.fit(
            x=x, y=y, batch_size=4, verbose=0, failure_rule=FailureRule(whole_batch=True)
        )

    # No count: a fit on a model that always fails runs to its end, every row counted.
    program = compiled(await build_program(failing_model()))
    history = await program.fit(
        x=x, y=y, batch_size=4, verbose=0, failure_rule=FailureRule(consecutive=None)
    )
    assert history.history["failures"] == [8]


async def test_each_call_counts_afresh() -> None:
    """Failures left over from one evaluation do not count against the next."""
    program = compiled(await build_program(failing_model()))
    x, y, _ = capitals(6)
    for _ in range(3):  # 6 failures each: 18 in all, never 10 in one call
        logs = await program.evaluate(x=x, y=y, batch_size=6, verbose=0)
        assert logs["failures"] == 6


async def test_the_error_keeps_the_models_type_and_names_its_model() -> None:
    lm = synalinks.FakeLanguageModel(
        responses=[RateLimitError("slow down")], cycle=True, max_retries=0, backoff_base=0.0
    )
    program = compiled(await build_program(lm))
    x, y, _ = capitals(2)
    with pytest.raises(
        RateLimitError, match=r"2 predictions in a row failed; last error: .*slow down"
    ) as error:
        await program.evaluate(x=x, y=y, verbose=0, failure_rule=FailureRule(whole_batch=True))
    assert error.value.model == "fake/scripted"
    assert isinstance(error.value.__cause__, RateLimitError)


@pytest.mark.parametrize(
    "settings",
    [{"consecutive": 0}, {"consecutive": 2.5}, {"consecutive": True}, {"whole_batch": 1}],
)
def test_a_rule_that_cannot_work_is_refused(settings) -> None:
    with pytest.raises(ValueError, match=r"`(consecutive|whole_batch)` must be"):
        FailureRule(**settings)
