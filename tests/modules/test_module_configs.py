"""Every module round-trips through get_config / from_config."""

from __future__ import annotations

import pytest

import optimizer_core as synalinks
from optimizer_core.modules.input import InputLayer
from tests.support import Answer, Query


@pytest.mark.parametrize("cls", [synalinks.Generator, synalinks.ChainOfThought])
def test_generators_round_trip(cls) -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"answer": "x"}])
    module = cls(
        data_model=Answer, language_model=lm, instructions="Be terse.", temperature=0.2,
        use_inputs_schema=True, name="g", description="d",
    )  # fmt: skip
    config = synalinks.modules.serialize(module)
    again = synalinks.modules.deserialize(config)
    assert type(again) is cls
    assert again.get_config() == module.get_config()
    assert again.data_model is Answer
    assert again.state.get("instructions") == "Be terse."


def test_input_layer_round_trips() -> None:
    layer = InputLayer(data_model=Query, name="question")
    again = synalinks.modules.deserialize(synalinks.modules.serialize(layer))
    assert again.get_config() == layer.get_config() and again.data_model is Query


def test_generator_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="`language_model` is required"):
        synalinks.Generator(data_model=Answer)
    with pytest.raises(TypeError, match="`data_model` must be a DataModel subclass"):
        synalinks.Generator(
            data_model=dict, language_model=synalinks.FakeLanguageModel(responses=[])
        )
    with pytest.raises(TypeError, match="`data_model` must be a DataModel subclass"):
        synalinks.Input(data_model=str)


async def test_a_generator_from_a_json_schema_validates_answers() -> None:
    schema = {
        "title": "Verdict", "type": "object",
        "properties": {"label": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["label"],
    }  # fmt: skip
    lm = synalinks.FakeLanguageModel(
        responses=[{"label": "maybe"}, {"label": "yes"}], backoff_base=0.0
    )
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Generator(schema=schema, language_model=lm)(inputs)
    program = synalinks.Program(inputs=inputs, outputs=outputs)
    assert (await program(Query(query="?"))).get("label") == "yes"
    assert len(lm.calls) == 2  # the out-of-enum answer was retried
