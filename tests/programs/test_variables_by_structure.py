"""Loading saved variables into a program rebuilt with other generated module names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import SerializationError
from tests.support import Answer, Query


async def two_steps(*, second_cot: bool = False, third: bool = False) -> synalinks.Program:
    """Input -> Generator -> Generator (or ChainOfThought) [-> Generator], names generated."""
    lm = synalinks.FakeLanguageModel(responses=[])
    inputs = synalinks.Input(data_model=Query)
    draft = await synalinks.Generator(data_model=Answer, language_model=lm)(inputs)
    second = synalinks.ChainOfThought if second_cot else synalinks.Generator
    outputs = await second(data_model=Answer, language_model=lm)(draft)
    if third:
        outputs = await synalinks.Generator(data_model=Answer, language_model=lm)(outputs)
    return synalinks.Program(inputs=inputs, outputs=outputs)


def train(program: synalinks.Program) -> None:
    """Give each variable distinct trained values and some optimizer bookkeeping."""
    for i, variable in enumerate(program.trainable_variables):
        variable.assign({"instructions": f"step {i}", "examples": []})
        variable.update({"nb_visit": i + 3})


def assert_trained(program: synalinks.Program) -> None:
    for i, variable in enumerate(program.trainable_variables):
        assert variable.get("instructions") == f"step {i}"
        assert variable.get("nb_visit") == i + 3


async def test_a_rebuilt_program_loads_variables_saved_under_other_names(tmp_path: Path) -> None:
    saved = await two_steps()
    train(saved)
    saved.save_variables(tmp_path / "variables.json")
    rebuilt = await two_steps()
    assert {v.name for v in rebuilt.variables}.isdisjoint({v.name for v in saved.variables})
    rebuilt.load_variables(tmp_path / "variables.json")
    assert_trained(rebuilt)


async def test_the_file_records_where_each_variable_sits(tmp_path: Path) -> None:
    program = await two_steps(second_cot=True)
    program.save_variables(tmp_path / "variables.json")
    document = json.loads((tmp_path / "variables.json").read_text())
    assert list(document["variables"]) == [v.name for v in program.variables]
    first, second = program.modules[1:]
    assert document["layout"] == [
        {
            "variable": f"{first.name}/state",
            "module": first.name,
            "module_index": 1,
            "module_class": "Generator",
            "path": "state",
        },
        {
            "variable": f"{second.name}/state",
            "module": second.name,
            "module_index": 2,
            "module_class": "ChainOfThought",
            "path": "state",
        },
    ]


async def test_a_program_file_loads_into_a_rebuilt_program(tmp_path: Path) -> None:
    saved = await two_steps(second_cot=True)
    train(saved)
    saved.save(tmp_path / "program.json")
    rebuilt = await two_steps(second_cot=True)
    rebuilt.load_variables(tmp_path / "program.json")
    assert_trained(rebuilt)


async def test_a_file_written_before_layouts_loads_by_module_order(tmp_path: Path) -> None:
    saved = await two_steps()
    train(saved)
    saved.save_variables(tmp_path / "variables.json")
    document = json.loads((tmp_path / "variables.json").read_text())
    del document["layout"]  # what save_variables wrote before layouts
    (tmp_path / "old.json").write_text(json.dumps(document))
    rebuilt = await two_steps()
    rebuilt.load_variables(tmp_path / "old.json")
    assert_trained(rebuilt)


async def test_matching_names_win_over_positions(tmp_path: Path) -> None:
    lm = synalinks.FakeLanguageModel(responses=[])

    async def parallel(order: tuple[str, str]) -> synalinks.Program:
        inputs = synalinks.Input(data_model=Query)
        outputs = {
            name: await synalinks.Generator(data_model=Answer, language_model=lm, name=name)(inputs)
            for name in order
        }
        return synalinks.Program(inputs=inputs, outputs=[outputs["left"], outputs["right"]])

    saved = await parallel(("left", "right"))
    saved.get_variable("left/state").assign({"instructions": "I am left"})
    saved.save_variables(tmp_path / "variables.json")
    swapped = await parallel(("right", "left"))
    swapped.load_variables(tmp_path / "variables.json")
    assert swapped.get_variable("left/state").get("instructions") == "I am left"
    assert swapped.get_variable("right/state").get("instructions") != "I am left"


async def test_another_module_class_at_the_same_place_is_named(tmp_path: Path) -> None:
    saved = await two_steps()
    train(saved)
    saved.save_variables(tmp_path / "variables.json")
    other = await two_steps(second_cot=True)
    with pytest.raises(SerializationError) as caught:
        other.load_variables(tmp_path / "variables.json")
    message = str(caught.value)
    assert f"program {other.name!r} has no variable(s)" in message
    assert "module #2 is a Generator" in message and "but a ChainOfThought" in message
    assert other.trainable_variables[0].get("instructions") != "step 0"


async def test_an_extra_module_is_named(tmp_path: Path) -> None:
    saved = await two_steps()
    saved.save_variables(tmp_path / "variables.json")
    bigger = await two_steps(third=True)
    extra = bigger.modules[3].name
    with pytest.raises(
        SerializationError,
        match=rf"module #3 \(Generator '{extra}'.*"
        r"is in this program but not in the file",
    ):
        bigger.load_variables(tmp_path / "variables.json")
    bigger.save_variables(tmp_path / "bigger.json")
    smaller = await two_steps()
    with pytest.raises(SerializationError, match=r"is in the file but not in this program"):
        smaller.load_variables(tmp_path / "bigger.json")


async def test_a_file_without_layout_names_the_module_that_differs(tmp_path: Path) -> None:
    program = await two_steps()
    first = program.modules[1].name
    (tmp_path / "old.json").write_text(
        json.dumps(
            {
                "kind": "optimizer_core.variables",
                "format_version": 1,
                # A generator name no module of this process reaches (names are numbered).
                "variables": {"nope/state": {}, "generator_999999/state": {}},
            }
        )
    )
    with pytest.raises(SerializationError) as caught:
        program.load_variables(tmp_path / "old.json")
    message = str(caught.value)
    assert "has no variable(s) ['generator_999999/state', 'nope/state']" in message
    assert f"#0 is 'nope' in the file but {first!r} here" in message


async def test_a_malformed_layout_is_reported(tmp_path: Path) -> None:
    program = await two_steps()
    (tmp_path / "bad.json").write_text(
        json.dumps(
            {
                "kind": "optimizer_core.variables",
                "format_version": 1,
                "variables": {"nope/state": {}},
                "layout": [{"variable": "nope/state"}],
            }
        )
    )
    with pytest.raises(SerializationError, match="`layout` must be a list"):
        program.load_variables(tmp_path / "bad.json")
