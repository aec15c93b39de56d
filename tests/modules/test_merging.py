"""Concat, And, Or, Xor, Not, the operators, and a Generator given several inputs."""

from __future__ import annotations

import json

import pytest

import optimizer_core as synalinks
from optimizer_core.model_algebra import concat_keys
from tests.support import Answer, Query


class Draft(synalinks.DataModel):
    draft: str = synalinks.Field(description="A first answer")


class Labelled(synalinks.DataModel):
    answer: int


class Critique(synalinks.DataModel):
    critique: str


def test_clashing_names_get_the_first_free_suffix_as_in_the_reference() -> None:
    assert concat_keys([["answer"], ["answer"], ["answer", "answer_1"]]) == [
        ["answer"],
        ["answer_1"],
        ["answer_2", "answer_1_1"],
    ]


async def test_concat_keeps_every_field_and_renames_clashes() -> None:
    inputs = synalinks.Input(data_model=Query)
    merged = await synalinks.Concat()([inputs, inputs, inputs])
    assert list(merged.data_model.model_fields) == ["query", "query_1", "query_2"]
    program = synalinks.Program(inputs=inputs, outputs=merged)
    out = await program(Query(query="q"))
    assert out.get_json() == {"query": "q", "query_1": "q", "query_2": "q"}
    assert isinstance(out, merged.data_model)


async def test_a_none_input_fails_concat_with_its_reason_but_and_gives_none() -> None:
    lm = synalinks.FakeLanguageModel(responses=["not json"], max_retries=0)
    inputs = synalinks.Input(data_model=Query)
    draft = await synalinks.Generator(data_model=Draft, language_model=lm, name="drafter")(inputs)
    program = synalinks.Program(inputs=inputs, outputs=inputs + draft)
    trace = await program.trace(Query(query="q"))
    assert trace.output is None
    concat = trace.steps[-1]
    assert concat.error is not None and "input(s) [1] gave nothing" in concat.error

    lm = synalinks.FakeLanguageModel(responses=["not json"], max_retries=0)
    inputs = synalinks.Input(data_model=Query)
    draft = await synalinks.Generator(data_model=Draft, language_model=lm)(inputs)
    both = synalinks.Program(inputs=inputs, outputs=inputs & draft)
    trace = await both.trace(Query(query="q"))
    assert trace.output is None and trace.steps[-1].skipped and trace.steps[-1].error is None


async def test_or_is_the_first_present_input_typed_by_the_union_of_the_models() -> None:
    inputs = synalinks.Input(data_model=Query)
    lm = synalinks.FakeLanguageModel(
        responder=lambda messages, schema: {key: key[0] for key in schema["properties"]}
    )
    answer = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
    critique = await synalinks.Generator(data_model=Critique, language_model=lm)(inputs)
    either = answer | critique
    fields = either.data_model.model_fields
    assert list(fields) == ["answer", "critique"]
    assert not fields["answer"].is_required() and not fields["critique"].is_required()
    program = synalinks.Program(inputs=inputs, outputs=either)
    out = await program(Query(query="?"))
    assert out.get_json() == {"answer": "a", "critique": None}

    same = await synalinks.Or()([answer, answer])
    assert same.data_model is Answer  # one model: nothing to merge


async def test_or_refuses_one_field_name_with_two_types_when_built() -> None:
    inputs = synalinks.Input(data_model=Query)
    lm = synalinks.FakeLanguageModel(responses=[])
    text = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
    number = await synalinks.Generator(data_model=Labelled, language_model=lm)(inputs)
    with pytest.raises(
        TypeError, match="field 'answer' has one type in Answer and another in Labelled"
    ):
        _ = text | number
    assert list((text + number).data_model.model_fields) == ["answer", "answer_1"]


async def test_xor_gives_the_only_present_input() -> None:
    present, absent = Answer(answer="x"), None
    assert (present ^ absent) is present and (present ^ present) is None
    module = synalinks.Xor()
    assert await module([present, None]) is present
    assert await module([present, Answer(answer="y")]) is None
    assert await module([None, None]) is None


async def test_not_cancels_a_path() -> None:
    inputs = synalinks.Input(data_model=Query)
    cancelled = ~inputs
    assert cancelled.data_model is Query
    program = synalinks.Program(inputs=inputs, outputs=cancelled | inputs)
    assert await program(Query(query="kept")) == Query(query="kept")


async def test_operators_take_symbolic_data_models_only() -> None:
    inputs = synalinks.Input(data_model=Query)
    with pytest.raises(TypeError, match="combines two symbolic data models"):
        _ = inputs + Query(query="constant")
    with pytest.raises(ValueError, match="`\\+` needs both"):
        _ = Query(query="q") + None


async def test_a_generator_with_two_inputs_sees_them_merged() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"answer": "Paris"}])
    question = synalinks.Input(data_model=Query, name="question")
    draft = synalinks.Input(data_model=Draft, name="draft")
    answer = await synalinks.Generator(data_model=Answer, language_model=lm, name="finisher")(
        [question, draft]
    )
    program = synalinks.Program(inputs=[question, draft], outputs=answer)

    trace = await program.trace([Query(query="Capital of France?"), Draft(draft="Lyon?")])

    assert trace.output == Answer(answer="Paris")
    assert json.loads(lm.calls[0].messages[-1]["content"]) == {
        "query": "Capital of France?",
        "draft": "Lyon?",
    }
    finisher = trace.steps[-1]
    assert finisher.module == "finisher"
    assert finisher.inputs == {"query": "Capital of France?", "draft": "Lyon?"}


async def test_a_generator_skips_its_call_when_an_input_is_none() -> None:
    lm = synalinks.FakeLanguageModel(responses=[])
    generator = synalinks.Generator(data_model=Answer, language_model=lm)
    assert await generator([Query(query="q"), None]) is None
    assert lm.calls == []


async def test_return_inputs_puts_the_inputs_before_the_answer() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"answer": "4"}])
    inputs = synalinks.Input(data_model=Query)
    out = await synalinks.Generator(data_model=Answer, language_model=lm, return_inputs=True)(
        inputs
    )
    assert list(out.data_model.model_fields) == ["query", "answer"]
    program = synalinks.Program(inputs=inputs, outputs=out)
    assert (await program(Query(query="2+2?"))).get_json() == {"query": "2+2?", "answer": "4"}


@pytest.mark.parametrize("cls", [synalinks.Concat, synalinks.And, synalinks.Or, synalinks.Xor])
def test_merges_round_trip(cls: type[synalinks.Module]) -> None:
    module = cls(name="merge", description="d")
    again = synalinks.modules.deserialize(synalinks.modules.serialize(module))
    assert type(again) is cls and again.get_config() == module.get_config()
    assert synalinks.modules.get("concatenate").__class__ is synalinks.Concat
