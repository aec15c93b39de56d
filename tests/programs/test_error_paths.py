"""A document the engine cannot rebuild raises an error that says where: ``error.path``."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import SerializationError
from optimizer_core.saving import RefusedObjectError
from tests.support import build_program


async def document() -> dict[str, Any]:
    program = await build_program(synalinks.LanguageModel(model="openai/gpt-4o-mini"))
    program.compile(reward=synalinks.rewards.ExactMatch(), optimizer="random_few_shot")
    return program.to_json()


def generator_config(doc: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = doc["program"]["modules"][1]["module"]["config"]
    return config


def load_error(doc: dict[str, Any]) -> SerializationError:
    with pytest.raises(SerializationError) as caught:
        synalinks.Program.from_json(doc)
    return caught.value


async def test_unknown_variables_are_each_named() -> None:
    doc = await document()
    doc["variables"]["ghost/state"] = {"instructions": "x"}
    doc["variables"]["alien/state"] = {"instructions": "y"}
    error = load_error(doc)
    assert error.paths == ["variables.alien/state", "variables.ghost/state"]
    assert error.path == "variables.alien/state"
    assert error.reason == "no module of the program has this variable"
    assert "has no variable(s) ['alien/state', 'ghost/state']" in str(error)


async def test_a_variable_value_its_variable_refuses_is_located() -> None:
    doc = await document()
    name = next(iter(doc["variables"]))
    doc["variables"][name] = {"instructions": 42}
    error = load_error(doc)
    assert error.path == f"variables.{name}" and error.paths == [error.path]
    assert str(error) == f"variable {name!r}: {error.reason}"


async def test_a_constructor_argument_is_named_with_its_module() -> None:
    doc = await document()
    generator_config(doc)["temperature"] = -1
    error = load_error(doc)
    assert error.path == "program.modules[1].module.config.temperature"
    assert "`temperature` must be >= 0, got -1" in str(error)
    assert isinstance(error.__cause__, ValueError)


async def test_an_argument_of_a_nested_object_is_located_inside_it() -> None:
    doc = await document()
    generator_config(doc)["language_model"]["config"]["timeout"] = 0
    error = load_error(doc)
    assert error.path == "program.modules[1].module.config.language_model.config.timeout"


async def test_an_argument_the_constructor_does_not_take_is_named() -> None:
    doc = await document()
    generator_config(doc)["colour"] = "blue"
    assert load_error(doc).path == "program.modules[1].module.config.colour"


async def test_a_data_model_that_cannot_be_rebuilt_is_located() -> None:
    doc = await document()
    generator_config(doc)["data_model"] = {"name": "Answer"}
    error = load_error(doc)
    assert error.path == "program.modules[1].module.config.data_model"
    assert "not a saved DataModel" in str(error)


async def test_wiring_to_an_unknown_module_names_the_inbound_entry() -> None:
    doc = await document()
    doc["program"]["modules"][1]["inbound"] = ["nowhere"]
    assert load_error(doc).path == "program.modules[1].inbound[0]"


async def test_a_compile_config_error_is_located_in_the_compile_config() -> None:
    doc = await document()
    doc["compile_config"]["reward"]["config"]["in_mask"] = "answer"
    error = load_error(doc)
    assert error.path == "compile_config.reward.config.in_mask"


async def test_deserialize_locates_relative_to_the_object_it_was_given() -> None:
    doc = await document()
    module = copy.deepcopy(doc["program"]["modules"][1]["module"])
    module["config"]["language_model"]["config"]["max_retries"] = -2
    with pytest.raises(SerializationError) as caught:
        synalinks.modules.deserialize(module)
    assert caught.value.path == "config.language_model.config.max_retries"
    assert caught.value.config is module


async def test_refusals_keep_their_own_paths() -> None:
    doc = await document()
    generator_config(doc)["language_model"]["registered_name"] = "subprocess.Popen"
    with pytest.raises(RefusedObjectError) as caught:
        synalinks.Program.from_json(doc)
    assert caught.value.path == "program.modules[1].module.config.language_model"


async def test_kind_and_version_are_named() -> None:
    doc = await document()
    assert load_error({**doc, "kind": "nope"}).path == "kind"
    assert load_error({**doc, "format_version": 99}).path == "format_version"


async def test_load_variables_names_the_variables_it_cannot_place(tmp_path: Path) -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    (tmp_path / "old.json").write_text(
        '{"kind": "optimizer_core.variables", "format_version": 1,'
        ' "variables": {"nope/state": {}, "generator_99/state": {}}}'
    )
    with pytest.raises(SerializationError) as caught:
        program.load_variables(tmp_path / "old.json")
    assert caught.value.paths == ["variables.generator_99/state", "variables.nope/state"]
    assert "has no variable(s) ['generator_99/state', 'nope/state']" in str(caught.value)


def test_within_prefixes_every_path() -> None:
    error = SerializationError("x", paths=["variables.a", "variables.b"])
    assert error.path == "variables.a"
    error.within("inner")
    assert error.paths == ["inner.variables.a", "inner.variables.b"]
    assert error.path == "inner.variables.a"
    whole = SerializationError("y").within("modules[2]")
    assert whole.path == "modules[2]" and whole.paths == ["modules[2]"]
