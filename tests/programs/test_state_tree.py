"""Program.get_state_tree / set_state_tree: every variable's JSON keyed by module and path."""

from __future__ import annotations

import copy

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import SerializationError
from tests.support import build_program


async def test_the_tree_holds_every_variable_and_loads_back() -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    tree = program.get_state_tree()
    flat = [(m, p) for m, states in tree.items() for p in states]
    assert len(flat) == len(program.variables)
    for entry in program.get_variables_layout():
        assert (
            tree[entry["module"]][entry["path"]]
            == program.get_variable(entry["variable"]).get_json()
        )

    saved = copy.deepcopy(tree)
    states = next(iter(saved.values()))
    state = next(iter(states.values()))
    state["nb_visit"] = 7
    program.set_state_tree(saved)
    assert program.get_state_tree() == saved
    assert program.get_state_tree() != tree


async def test_an_unknown_module_or_path_is_named() -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    tree = program.get_state_tree()
    module = next(iter(tree))
    with pytest.raises(SerializationError, match="no module 'nowhere'"):
        program.set_state_tree({"nowhere": {}})
    with pytest.raises(SerializationError, match="has no variable 'ghost'"):
        program.set_state_tree({module: {"ghost": {}}})


async def test_a_mismatched_structure_is_refused() -> None:
    program = await build_program(synalinks.FakeLanguageModel(responses=[]))
    module, states = next(iter(program.get_state_tree().items()))
    place = next(iter(states))
    with pytest.raises(SerializationError, match="keyed by module name"):
        program.set_state_tree([])  # type: ignore[arg-type]
    with pytest.raises(SerializationError, match="keyed by variable path"):
        program.set_state_tree({module: "x"})
    with pytest.raises(SerializationError, match="a variable's JSON object"):
        program.set_state_tree({module: {place: 3}})
