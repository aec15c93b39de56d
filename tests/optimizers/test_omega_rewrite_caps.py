"""OMEGA caps what its language model may write: the thinking and each rewritten text field."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

import optimizer_core as synalinks
from optimizer_core.modules.generator import GeneratorState
from optimizer_core.optimizers import OMEGA
from optimizer_core.optimizers.omega_prompts import (
    COMPACT_MIN_TEXT_CAP,
    MIN_TEXT_CAP,
    capped_answer,
    submodel,
)
from optimizer_core.variables import Variable


def variable_with(instructions: str) -> Variable:
    variable = Variable(
        name="answerer/state",
        initial_value={"instructions": instructions, "examples": []},
        data_model=GeneratorState,
    )
    variable.update({"predictions": [{"inputs": {"q": "1"}, "outputs": {"a": "1"}, "reward": 1.0}]})
    return variable


async def zero(trial: dict[str, Any]) -> float:
    return 0.0


@pytest.mark.parametrize(
    ("instructions", "cap"),
    [("Answer.", MIN_TEXT_CAP), ("x" * 400, 1000), ("x" * 501, 1500)],
)
async def test_the_rewrite_schema_caps_thinking_and_instructions(instructions, cap) -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"thinking": "t", "instructions": "Better."}])
    optimizer = OMEGA(language_model=lm, embedding_model=synalinks.FakeEmbeddingModel(), seed=0)
    variable = variable_with(instructions)
    await optimizer.build([variable])
    await optimizer.train_step(0, [variable], batch_reward=0.2, evaluate=zero)
    (call,) = lm.calls
    properties = call.schema["properties"]
    assert list(properties) == ["thinking", "instructions"]
    assert properties["thinking"]["maxLength"] == cap
    assert properties["instructions"]["maxLength"] == cap


def test_an_answer_past_the_cap_is_invalid_and_other_fields_keep_their_type() -> None:
    class Plan(synalinks.DataModel):
        plan: str
        steps: list[str]

    model = capped_answer(Plan, 500)
    assert list(model.model_fields) == ["thinking", "plan", "steps"]
    model(thinking="t", plan="p" * 500, steps=["s" * 900])
    with pytest.raises(pydantic.ValidationError):
        model(thinking="t", plan="p" * 501, steps=[])
    rewrite = capped_answer(submodel(GeneratorState, ["instructions"]), 500)
    assert rewrite.get_schema()["required"] == ["thinking", "instructions"]


class SmallFake(synalinks.FakeLanguageModel):
    """A fake that asks for compact prompts, as the bundled model does."""

    compact_prompts = True


def fill_the_cap(messages: Any, schema: Any) -> dict[str, Any]:
    """What SmolLM2-135M does with a rewrite: write until the cap."""
    return {"instructions": "x" * schema["properties"]["instructions"]["maxLength"]}


@pytest.mark.parametrize(
    ("instructions", "cap"),
    [("Answer.", COMPACT_MIN_TEXT_CAP), ("x" * 300, 300), ("x" * 450, 600), ("x" * 600, 600)],
)
async def test_a_compact_rewrite_may_be_as_long_as_its_parent_not_longer(instructions, cap) -> None:
    lm = SmallFake(responder=fill_the_cap)
    optimizer = OMEGA(language_model=lm, embedding_model=synalinks.FakeEmbeddingModel(), seed=0)
    variable = variable_with(instructions)
    await optimizer.build([variable])
    await optimizer.train_step(0, [variable], batch_reward=0.2, evaluate=zero)
    (call,) = lm.calls
    assert list(call.schema["properties"]) == ["instructions"]
    assert call.schema["properties"]["instructions"]["maxLength"] == cap


async def test_compact_rewrites_that_fill_their_cap_do_not_grow_generation_after_generation():
    lm = SmallFake(responder=fill_the_cap)
    optimizer = OMEGA(
        language_model=lm, embedding_model=synalinks.FakeEmbeddingModel(), selection="random",
        seed=0,
    )  # fmt: skip
    variable = variable_with("Answer.")
    await optimizer.build([variable])
    for step in range(6):
        await optimizer.train_step(step, [variable], batch_reward=0.2, evaluate=zero)
    caps = [call.schema["properties"]["instructions"]["maxLength"] for call in lm.calls]
    assert caps == [COMPACT_MIN_TEXT_CAP] * 6
    lengths = [len(c["value"]["instructions"]) for c in variable.get("best_candidates")]
    assert max(lengths) == COMPACT_MIN_TEXT_CAP
