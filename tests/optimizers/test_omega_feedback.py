"""OMEGA shows the reward's feedback on the worst rows of its batch in its mutation prompt."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import optimizer_core as synalinks
from optimizer_core.optimizers import OMEGA
from optimizer_core.optimizers.omega_prompts import COMPACT_SHOWN_FEEDBACK_CHARS
from tests.support import Answer, Query, build_program

# The student answers "Paris" to everything: right on the first row only.
_CITIES = ["Paris", "Rome", "Madrid", "Berlin"]
_BEST_FEEDBACK = "spot on, nothing to change"


async def scored(y_true: dict[str, Any], y_pred: dict[str, Any]) -> Any:
    """A code reward that says something on every row, right or wrong."""
    if y_true["answer"] == y_pred["answer"]:
        return 1.0, _BEST_FEEDBACK
    return 0.0, f"expected {y_true['answer']!r}, got {y_pred['answer']!r}: wrong city"


async def silent(y_true: dict[str, Any], y_pred: dict[str, Any]) -> float:
    return float(y_true["answer"] == y_pred["answer"])


class SmallFake(synalinks.FakeLanguageModel):
    """A mutation model that asks for the compact prompts, as the bundled model does."""

    compact_prompts = True


def mutation_model(compact: bool) -> synalinks.FakeLanguageModel:
    def responder(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        answer = {"instructions": "Name the capital city asked about."}
        return answer if compact else {"thinking": "", **answer}

    return (SmallFake if compact else synalinks.FakeLanguageModel)(responder=responder)


async def fit_once(reward: Any, *, compact: bool, **settings: Any) -> str:
    """One epoch of one batch of four rows; the text of OMEGA's mutation request."""
    student = synalinks.FakeLanguageModel(responder=lambda messages, schema: {"answer": "Paris"})
    program = await build_program(student)
    lm = mutation_model(compact)
    optimizer = OMEGA(
        language_model=lm, embedding_model=synalinks.FakeEmbeddingModel(), seed=0, **settings
    )
    program.compile(reward=synalinks.rewards.MeanRewardWrapper(fn=reward), optimizer=optimizer)
    x = np.array([Query(query=f"Capital number {i}?") for i in range(4)], dtype="object")
    y = np.array([Answer(answer=city) for city in _CITIES], dtype="object")
    await program.fit(x=x, y=y, batch_size=4, epochs=1, verbose=0, seed=0)
    [call] = lm.calls
    return "\n".join(message["content"] for message in call.messages)


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "full"])
async def test_the_mutation_prompt_shows_the_worst_rows_feedback_not_the_best_rows(
    compact: bool,
) -> None:
    prompt = await fit_once(scored, compact=compact)
    assert "expected 'Rome', got 'Paris': wrong city" in prompt
    assert _BEST_FEEDBACK not in prompt


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "full"])
async def test_use_feedback_false_shows_none(compact: bool) -> None:
    prompt = await fit_once(scored, compact=compact, use_feedback=False)
    assert "wrong city" not in prompt and _BEST_FEEDBACK not in prompt
    assert "Rome" in prompt, "the mistakes are still shown, with their expected answer"
    assert "feedback" not in prompt, "the prompt is the one without feedback, word for word"


async def test_the_full_prompt_shows_feedback_on_the_worst_rows_only() -> None:
    prompt = await fit_once(scored, compact=False)
    shown = json.loads(prompt[prompt.index('{"program_description"') :])
    assert all("feedback" not in p for p in shown["best_predictions"])
    assert all(p["feedback"].endswith("wrong city") for p in shown["worst_predictions"])
    assert "`feedback`" in prompt, "the instructions say what it is"


async def test_a_row_without_feedback_still_shows_its_reward() -> None:
    prompt = await fit_once(silent, compact=True)
    shown = json.loads(prompt[prompt.index("{") :])
    assert shown["mistakes"] and all(m["reward"] == 0.0 for m in shown["mistakes"])
    assert all("feedback" not in m for m in shown["mistakes"])


async def test_long_feedback_is_cut_in_the_compact_prompt() -> None:
    async def chatty(y_true: dict[str, Any], y_pred: dict[str, Any]) -> Any:
        return float(y_true["answer"] == y_pred["answer"]), "wrong " * 300

    prompt = await fit_once(chatty, compact=True)
    shown = json.loads(prompt[prompt.index("{") :])
    texts = [m["feedback"] for m in shown["mistakes"]]
    assert texts and all(len(t) == COMPACT_SHOWN_FEEDBACK_CHARS for t in texts)
    assert all(t.endswith("\u2026") for t in texts)


def test_use_feedback_round_trips_through_the_config() -> None:
    optimizer = OMEGA(
        language_model=synalinks.FakeLanguageModel(),
        embedding_model=synalinks.FakeEmbeddingModel(),
        use_feedback=False,
    )
    config = json.loads(json.dumps(synalinks.optimizers.serialize(optimizer)))
    assert synalinks.optimizers.deserialize(config).use_feedback is False
    with pytest.raises((TypeError, ValueError), match="use_feedback"):
        OMEGA(
            language_model=synalinks.FakeLanguageModel(),
            embedding_model=synalinks.FakeEmbeddingModel(),
            use_feedback="yes",
        )


async def test_feedback_adds_a_bounded_amount_to_the_compact_prompt() -> None:
    """However long the reward's text, each mistake grows by its reward and at most
    COMPACT_SHOWN_FEEDBACK_CHARS (three mistakes: about 200 tokens, within the bundled
    model's window; docs/benchmarks.md measured the demo's)."""

    async def essay(y_true: dict[str, Any], y_pred: dict[str, Any]) -> Any:
        return float(y_true["answer"] == y_pred["answer"]), "because " * 1_000

    with_text = await fit_once(essay, compact=True)
    without = await fit_once(essay, compact=True, use_feedback=False)
    mistakes = len(json.loads(with_text[with_text.index("{") :])["mistakes"])
    assert mistakes == 2  # the worst half of the four rows
    overhead = len(', "reward": 0.0, "feedback": ""') + len(
        " A mistake's `feedback` says what was wrong."
    )
    assert len(with_text) - len(without) <= mistakes * (COMPACT_SHOWN_FEEDBACK_CHARS + overhead)
