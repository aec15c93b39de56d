"""OMEGA caps what its language model may write: the thinking and each rewritten text field."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

import optimizer_core as synalinks
from optimizer_core.modules.generator import GeneratorState
from optimizer_core.optimizers import OMEGA
from optimizer_core.optimizers.omega_prompts import MIN_TEXT_CAP, capped_answer, submodel
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
