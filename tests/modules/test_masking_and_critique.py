"""InMask, OutMask, Identity and SelfCritique."""

from __future__ import annotations

import json
from typing import Any

import pytest

import optimizer_core as synalinks
from tests.support import Answer, Query


class Reasoned(synalinks.DataModel):
    thinking: str
    answer: str
    answers_1: list[str]


def reasoned() -> Reasoned:
    return Reasoned(thinking="t", answer="a", answers_1=["b"])


async def test_masks_match_fields_by_base_key() -> None:
    inputs = synalinks.Input(data_model=Reasoned)
    kept = await synalinks.InMask(mask=["answer"])(inputs)
    dropped = await synalinks.OutMask(mask=["answers"])(inputs)
    assert list(kept.data_model.model_fields) == ["answer", "answers_1"]
    assert list(dropped.data_model.model_fields) == ["thinking"]
    program = synalinks.Program(inputs=inputs, outputs=[kept, dropped])
    kept_value, dropped_value = await program(reasoned())
    assert kept_value.get_json() == {"answer": "a", "answers_1": ["b"]}
    assert dropped_value.get_json() == {"thinking": "t"}


async def test_a_mask_that_leaves_nothing_is_refused_when_built() -> None:
    inputs = synalinks.Input(data_model=Reasoned)
    with pytest.raises(ValueError, match="keeps none of \\['summary'\\]"):
        await synalinks.InMask(mask=["summary"])(inputs)
    with pytest.raises(ValueError, match="drops all of"):
        await synalinks.OutMask(mask=["thinking", "answer"])(inputs)
    with pytest.raises(ValueError, match="`mask` must be a non-empty list"):
        synalinks.InMask(mask="answer")
    with pytest.raises(TypeError, match="masks one data model"):
        await synalinks.InMask(mask=["answer"])([inputs, inputs])


@pytest.mark.parametrize("cls", [synalinks.InMask, synalinks.OutMask])
def test_masks_round_trip(cls: type[synalinks.Module]) -> None:
    module = cls(mask=["thinking"], name="m")
    again = synalinks.modules.deserialize(synalinks.modules.serialize(module))
    assert again.get_config() == module.get_config() == {
        "name": "m", "description": None, "trainable": False, "mask": ["thinking"],
    }  # fmt: skip


async def test_identity_passes_one_or_several_inputs_on() -> None:
    first, second = synalinks.Input(data_model=Query), synalinks.Input(data_model=Answer)
    same = await synalinks.Identity()(first)
    both = await synalinks.Identity()([first, second])
    assert same.data_model is Query and [s.data_model for s in both] == [Query, Answer]
    program = synalinks.Program(inputs=[first, second], outputs=[same, *both])
    assert await program([Query(query="q"), Answer(answer="a")]) == [
        Query(query="q"), Query(query="q"), Answer(answer="a"),
    ]  # fmt: skip


def drafter_critic_reviser(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
    """The drafter answers 5, the critic finds it off by one, the reviser (who must see the
    critique) answers 4."""
    properties = (schema or {}).get("properties", {})
    shown = json.loads(messages[-1]["content"])
    if messages[0]["content"] == "Draft an answer.":
        return {"answer": "5"}
    if "critique" in properties:
        return {"critique": f"{shown['answer']} is off by one", "reward": 0.2}
    assert shown["critique"].endswith("off by one")
    return {"answer": "4"}


async def test_self_critique_revises_the_last_input_in_the_light_of_the_critique() -> None:
    lm = synalinks.FakeLanguageModel(responder=drafter_critic_reviser)
    question = synalinks.Input(data_model=Query)
    draft = await synalinks.Generator(
        data_model=Answer, language_model=lm, instructions="Draft an answer.", name="drafter"
    )(question)
    revised = await synalinks.SelfCritique(language_model=lm, revise=True, name="review")(
        [question, draft]
    )
    assert list(revised.data_model.model_fields) == ["answer", "critique", "reward"]
    program = synalinks.Program(inputs=question, outputs=revised)

    trace = await program.trace(Query(query="2+2?"))

    assert trace.output.get_json() == {"answer": "4", "critique": "5 is off by one", "reward": 0.2}
    steps = {step.module: step for step in trace.steps}
    assert steps["review_critic"].inputs == {"query": "2+2?", "answer": "5"}
    assert steps["review_reviser"].parent == "review"
    assert {v.name for v in program.trainable_variables} == {
        "drafter/state", "review_critic/state", "review_reviser/state",
    }  # fmt: skip

    again = synalinks.Program.from_json(program.to_json(), safe_mode=True)
    again.set_language_model(synalinks.FakeLanguageModel(responder=drafter_critic_reviser))
    assert (await again(Query(query="2+2?"))).get_json() == trace.output.get_json()


async def test_self_critique_options() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"critique": "fine"}])
    inputs = synalinks.Input(data_model=Answer)
    alone = await synalinks.SelfCritique(
        language_model=lm, return_reward=False, return_inputs=False
    )(inputs)
    assert list(alone.data_model.model_fields) == ["critique"]
    with pytest.raises(ValueError, match="leave `return_inputs` unset"):
        synalinks.SelfCritique(language_model=lm, revise=True, return_inputs=True)
    module = synalinks.SelfCritique(language_model=lm, revise=True, temperature=0.5, name="sc")
    again = synalinks.modules.deserialize(synalinks.modules.serialize(module))
    assert again.get_config() == module.get_config() and again.critic.temperature == 0.5


@pytest.mark.parametrize(("written", "kept"), [(0.7, 0.7), (8, 1.0), (85.0, 1.0), (-0.5, 0.0)])
async def test_the_critic_grades_on_eleven_levels_and_a_grade_off_the_scale_is_clamped(
    written: float, kept: float
) -> None:
    # A provider that ignores the schema may write any number: the row keeps its critique,
    # with the grade brought into [0, 1] (the reference's normalize_score clamps too).
    lm = synalinks.FakeLanguageModel(responses=[{"critique": "too short", "reward": written}])
    inputs = synalinks.Input(data_model=Answer)
    critiqued = await synalinks.SelfCritique(language_model=lm, name="sc")(inputs)
    program = synalinks.Program(inputs=inputs, outputs=critiqued)

    result = await program(Answer(answer="4"))

    assert result is not None and result.get_json() == {
        "answer": "4", "critique": "too short", "reward": kept,
    }  # fmt: skip
    # What the model is asked for: one of the levels, which a grammar can enforce.
    reward = lm.calls[0].schema["properties"]["reward"]
    assert reward["type"] == "number"
    assert reward["enum"] == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
