"""Generator / ChainOfThought sampling settings: sent on each call, saved, checked on load.

As the reference library documents them: ``max_tokens``, ``top_p``, ``top_k`` and
``reasoning_effort`` are unset (None, not sent) by default, forwarded to the language
model on every call when set, and part of the module's config; ``ChainOfThought``
also works without a data model.
"""

from __future__ import annotations

import json

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import SerializationError
from optimizer_core.language_models.language_model import output_schema
from optimizer_core.modules.chain_of_thought import TextAnswer
from tests.support import Answer, Query

SETTINGS = {"max_tokens": 120, "top_p": 0.8, "top_k": 30, "reasoning_effort": "low"}


@pytest.mark.parametrize("cls", [synalinks.Generator, synalinks.ChainOfThought])
async def test_each_call_carries_the_modules_settings(cls) -> None:
    lm = synalinks.FakeLanguageModel()
    module = cls(data_model=Answer, language_model=lm, **SETTINGS)
    await module(Query(query="q"))
    (call,) = lm.calls
    assert (call.max_tokens, call.top_p, call.top_k, call.reasoning_effort) == (120, 0.8, 30, "low")


async def test_unset_settings_are_not_sent_and_the_bound_comes_from_the_schema() -> None:
    lm = synalinks.FakeLanguageModel()
    module = synalinks.ChainOfThought(data_model=Answer, language_model=lm)
    assert (module.max_tokens, module.top_p, module.top_k, module.reasoning_effort) == (None,) * 4
    await module(Query(query="q"))
    (call,) = lm.calls
    assert (call.top_p, call.top_k, call.reasoning_effort) == (None, None, None)
    assert call.max_tokens == output_schema(module.output_model).bound


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("max_tokens", 0),
        ("max_tokens", 1.5),
        ("top_p", 0),
        ("top_p", 1.2),
        ("top_k", 0),
        ("top_k", True),
        ("reasoning_effort", "extreme"),
    ],
)
def test_a_setting_out_of_its_range_is_refused_by_name(setting: str, value: object) -> None:
    lm = synalinks.FakeLanguageModel()
    with pytest.raises(ValueError, match=f"`{setting}`"):
        synalinks.Generator(data_model=Answer, language_model=lm, **{setting: value})


@pytest.mark.parametrize("cls", [synalinks.Generator, synalinks.ChainOfThought])
def test_settings_round_trip_through_the_config(cls) -> None:
    module = cls(data_model=Answer, language_model=synalinks.FakeLanguageModel(), **SETTINGS)
    config = module.get_config()
    assert {key: config[key] for key in SETTINGS} == SETTINGS
    again = synalinks.modules.deserialize(synalinks.modules.serialize(module))
    assert again.get_config() == config


async def program_with(**settings: object) -> synalinks.Program:
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.ChainOfThought(
        data_model=Answer,
        language_model=synalinks.FakeLanguageModel(),
        name="reasoner",
        **settings,
    )(inputs)
    return synalinks.Program(inputs=inputs, outputs=outputs, name="p")


async def test_settings_round_trip_through_a_program_document_in_safe_mode() -> None:
    program = await program_with(**SETTINGS)
    loaded = synalinks.Program.from_json(program.to_json())  # safe mode is the default
    module = loaded.get_module("reasoner")
    assert {key: getattr(module, key) for key in SETTINGS} == SETTINGS


async def test_a_document_with_a_setting_out_of_range_names_it() -> None:
    text = json.dumps((await program_with()).to_json())
    hostile = text.replace('"top_p": null', '"top_p": 7')
    assert hostile != text
    with pytest.raises(SerializationError, match="top_p"):
        synalinks.Program.from_json(json.loads(hostile))


async def test_an_older_document_without_the_settings_loads_with_them_unset() -> None:
    document = json.dumps((await program_with()).to_json())
    for key in SETTINGS:
        document = document.replace(f'"{key}": null, ', "").replace(f', "{key}": null', "")
    assert '"top_k"' not in document
    module = synalinks.Program.from_json(json.loads(document)).get_module("reasoner")
    assert (module.max_tokens, module.top_p, module.top_k) == (None, None, None)


# -- ChainOfThought(data_model=None) ------------------------------------------------


async def test_chain_of_thought_without_a_data_model_answers_in_free_text() -> None:
    lm = synalinks.FakeLanguageModel(
        responses=[{"thinking": "France's capital is Paris.", "content": "Paris"}]
    )
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.ChainOfThought(data_model=None, language_model=lm)(inputs)
    program = synalinks.Program(inputs=inputs, outputs=outputs)
    result = await program(Query(query="What is the capital of France?"))
    assert result.get_json() == {"thinking": "France's capital is Paris.", "content": "Paris"}
    assert list(lm.calls[0].schema["properties"]) == ["thinking", "content"]


async def test_chain_of_thought_without_a_data_model_round_trips_as_none() -> None:
    module = synalinks.ChainOfThought(language_model=synalinks.FakeLanguageModel())
    assert module.free_text and module.data_model is TextAnswer
    config = module.get_config()
    assert config["data_model"] is None
    again = synalinks.modules.deserialize(synalinks.modules.serialize(module))
    assert again.free_text and again.get_config() == config


def test_a_generator_still_needs_a_data_model() -> None:
    with pytest.raises(TypeError, match="`data_model` must be a DataModel subclass"):
        synalinks.Generator(language_model=synalinks.FakeLanguageModel())
