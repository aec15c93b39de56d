"""Safe mode: a document can only name registered objects, each where its kind belongs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import optimizer_core as oc
from optimizer_core import callbacks, language_models, metrics, optimizers, rewards
from optimizer_core import modules as modules_family
from optimizer_core.exceptions import SerializationError
from optimizer_core.saving import (
    RefusedObjectError,
    deserialize_object,
    get_registered_object,
    refused_names,
    register_synalinks_serializable,
    safe_mode_scope,
)
from optimizer_core.saving.object_registry import _LIBRARY_OBJECTS, lookup_registered
from tests.saving.hostile import (
    CORPUS,
    IDS,
    SLOTS,
    SYSTEM_VIA_PROGRAM,
    Hostile,
    Question,
    Reply,
    as_class,
    as_function,
    base_document,
)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return base_document()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "pwned"


def assert_refused(error: BaseException, entry: Hostile) -> None:
    assert isinstance(error, SerializationError)
    assert entry.name in str(error)
    if isinstance(error, RefusedObjectError):
        assert error.path == entry.path
        assert error.name.endswith(entry.name) or entry.name in error.name


def test_the_base_document_loads(document, tmp_path) -> None:
    program = oc.Program.from_json(document)
    assert program.compiled
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document))
    assert oc.Program.load(path).get_config() == program.get_config()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_from_json_refuses(entry: Hostile, document, marker: Path) -> None:
    with pytest.raises(SerializationError) as caught:
        oc.Program.from_json(entry.apply(document, str(marker)))
    assert_refused(caught.value, entry)
    assert not marker.exists()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_load_refuses(entry: Hostile, document, marker: Path, tmp_path: Path) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(entry.apply(document, str(marker))))
    with pytest.raises(SerializationError) as caught:
        oc.Program.load(path)
    assert_refused(caught.value, entry)
    assert not marker.exists()


_CLASS_SLOTS = ["module", "language_model", "reward", "metric", "optimizer"]
#: The corpus's import paths that name nothing registered (the wrong-kind ones are left out).
_NAMES = sorted(
    {
        entry.name
        for entry in CORPUS
        if "." in entry.name
        and entry.slot != "data_model"
        and lookup_registered(entry.name) is None
    }
)


@pytest.mark.parametrize("slot", _CLASS_SLOTS)
@pytest.mark.parametrize("name", _NAMES)
def test_no_hostile_name_loads_in_any_slot(slot: str, name: str, document, marker: Path) -> None:
    """Every name of the corpus, as a class and as a function, in every slot."""
    for payload in (as_class(name, {"command": f"touch {marker}"}), as_function(name)):
        entry = Hostile("cross", slot, name, lambda _marker, payload=payload: payload)
        with pytest.raises(RefusedObjectError) as caught:
            oc.Program.from_json(entry.apply(document, str(marker)))
        assert caught.value.path == SLOTS[slot]
        assert not marker.exists()


CONSTRUCTED: list[str] = []


@register_synalinks_serializable(package="SafeTests")
class RecordingModel(oc.FakeLanguageModel):
    """A registered model that records every construction."""

    def __init__(self, **kwargs: Any) -> None:
        CONSTRUCTED.append("model")
        super().__init__(**kwargs)


def test_refusal_happens_before_anything_is_built(document, marker: Path) -> None:
    """A registered object before the hostile one is not even constructed."""
    recording = json.loads(json.dumps(document))
    recording["program"]["modules"][1]["module"]["config"]["language_model"] = {
        "class_name": "RecordingModel",
        "registered_name": "SafeTests>RecordingModel",
        "config": {},
    }
    oc.Program.from_json(recording)
    assert CONSTRUCTED == ["model"]
    CONSTRUCTED.clear()
    hostile = CORPUS[4].apply(recording, str(marker))  # the reward names os.system
    assert [e.path for e in refused_names(hostile)] == ["compile_config.reward"]
    with pytest.raises(RefusedObjectError, match=r"os\.system"):
        oc.Program.from_json(hostile)
    assert CONSTRUCTED == []


@pytest.mark.parametrize(
    "family", [rewards, metrics, optimizers, callbacks, language_models, modules_family]
)
@pytest.mark.parametrize("name", _NAMES)
def test_family_deserialize_refuses(family: Any, name: str, marker: Path) -> None:
    with pytest.raises(SerializationError):
        family.deserialize(as_class(name, {"command": f"touch {marker}"}))
    with pytest.raises((SerializationError, ValueError)):
        family.deserialize(as_function(name))
    assert not marker.exists()


@pytest.mark.parametrize("family", [rewards, metrics])
@pytest.mark.parametrize("name", _NAMES)
def test_family_get_by_name_refuses(family: Any, name: str) -> None:
    with pytest.raises(ValueError, match="unknown"):
        family.get(name)


@pytest.mark.parametrize("name", _NAMES)
def test_get_registered_object_is_a_dictionary_lookup(name: str) -> None:
    with pytest.raises(RefusedObjectError, match="safe mode"):
        get_registered_object(name)


def test_every_family_table_is_registered_under_module_qualname() -> None:
    tables: list[Any] = [
        modules_family.ALL_OBJECTS.values(),
        rewards.ALL_OBJECTS.values(),
        metrics.ALL_OBJECTS.values(),
        optimizers.ALL_OBJECTS.values(),
        [callbacks.History, callbacks.ProgramCheckpoint, callbacks.ProgressBar],
        [oc.LanguageModel, oc.EmbeddingModel, oc.FakeLanguageModel, oc.FakeEmbeddingModel],
        [oc.Program],
    ]
    for table in tables:
        for cls in table:
            name = f"{cls.__module__}.{cls.__qualname__}"
            assert get_registered_object(name) is cls, name
    for name, obj in _LIBRARY_OBJECTS.items():
        assert f"{obj.__module__}.{obj.__qualname__}" == name


def test_stored_names_still_load(document) -> None:
    """What documents hold today: module.qualname for library classes, Package>name for users."""
    names = [
        "optimizer_core.modules.input.InputLayer",
        "optimizer_core.modules.generator.Generator",
        "optimizer_core.modules.chain_of_thought.ChainOfThought",
        "optimizer_core.language_models.language_model.LanguageModel",
        "optimizer_core.rewards.exact_match.ExactMatch",
        "optimizer_core.metrics.token_overlap.F1Score",
        "optimizer_core.optimizers.random_few_shot.RandomFewShot",
        "optimizer_core.optimizers.omega.OMEGA",
    ]
    for name in names:
        assert get_registered_object(name).__name__ == name.rsplit(".", 1)[-1]
    text = json.dumps(document)
    assert "optimizer_core.modules.generator.Generator" in text
    assert oc.Program.from_json(json.loads(text)).compiled


def test_user_registered_objects_load_where_their_kind_belongs(document, marker: Path) -> None:
    @register_synalinks_serializable(package="SafeTests", name="always_one")
    async def always_one(y_true: Any, y_pred: Any) -> float:
        return 1.0

    @register_synalinks_serializable(package="SafeTests")
    class Shout(oc.Module):
        async def call(self, inputs: Any, training: bool = False) -> Any:
            return inputs

    loaded = rewards.deserialize(as_function("SafeTests>always_one"))
    assert loaded.fn is always_one
    wrapped = rewards.deserialize(
        {"class_name": "MeanRewardWrapper", "config": {"fn": as_function("SafeTests>always_one")}}
    )
    assert wrapped.fn is always_one
    # A registered user module is a module, not a language model or an optimizer.
    shout = {"class_name": "Shout", "registered_name": "SafeTests>Shout", "config": {}}
    with pytest.raises(RefusedObjectError, match="Shout"):
        language_models.deserialize(shout)
    with pytest.raises(RefusedObjectError, match="Shout"):
        optimizers.deserialize(shout)
    # A registered function is not a module, nor a class.
    with pytest.raises(RefusedObjectError, match="always_one"):
        modules_family.deserialize(as_function("SafeTests>always_one"))


def test_an_object_found_under_another_name_is_refused() -> None:
    from optimizer_core.saving import object_registry

    object_registry._LIBRARY_OBJECTS["optimizer_core.saving.alias.Generator"] = oc.Generator
    try:
        with pytest.raises(RefusedObjectError):
            get_registered_object("optimizer_core.saving.alias.Generator")
    finally:
        del object_registry._LIBRARY_OBJECTS["optimizer_core.saving.alias.Generator"]


def test_a_data_model_hint_is_never_imported(document, marker: Path) -> None:
    """The class hint of a saved DataModel names a class; it is used only if already known."""
    hostile = json.loads(json.dumps(document))
    generator = hostile["program"]["modules"][1]["module"]["config"]
    generator["data_model"]["class"] = SYSTEM_VIA_PROGRAM
    program = oc.Program.from_json(hostile)
    assert program.output_data_model is not Reply
    assert program.output_data_model.model_json_schema() == Reply.model_json_schema()
    assert not marker.exists()
    # A known class with the same schema is reused.
    assert oc.Program.from_json(document).input_data_model is Question


def test_a_data_model_hint_that_is_not_a_data_model_is_ignored(document) -> None:
    hostile = json.loads(json.dumps(document))
    hostile["program"]["modules"][1]["module"]["config"]["data_model"]["class"] = (
        "optimizer_core.modules.generator.Generator"
    )
    assert oc.Program.from_json(hostile).output_data_model is not oc.Generator


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "__class__": "os.system"}}},
        {"type": "object", "properties": {"a": {"type": "string"}}, "py/object": "os.system"},
        {"type": "object", "properties": {"__module__": {"type": "string"}}},
        {"type": "object", "properties": {"__validators__": {"type": "string"}}},
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"$ref": "#/$defs/A"}},
        },
    ],
)
def test_a_schema_cannot_name_code(schema: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        oc.data_model_from_schema(schema)


def test_safe_mode_false_still_imports_for_trusted_files(document) -> None:
    trusted = json.loads(json.dumps(document))
    trusted["compile_config"]["reward"] = as_class(TRUSTED, {})
    with pytest.raises(RefusedObjectError):
        oc.Program.from_json(trusted)
    program = oc.Program.from_json(trusted, safe_mode=False)
    assert type(program.reward).__name__ == "TrustedReward"


class TrustedReward(rewards.Reward):
    async def call(self, y_true: Any, y_pred: Any) -> float:
        return 1.0


TRUSTED = f"{TrustedReward.__module__}.{TrustedReward.__qualname__}"


def test_safe_mode_is_the_default_everywhere() -> None:
    with pytest.raises(RefusedObjectError):
        deserialize_object(as_class(TRUSTED, {}))
    with safe_mode_scope(False):
        assert isinstance(
            deserialize_object(as_class(TRUSTED, {})),
            TrustedReward,
        )


def test_string_length_bounds_survive_and_bad_ones_are_named() -> None:
    from optimizer_core.datamodels import data_model_from_schema

    schema = {
        "type": "object",
        "properties": {"tag": {"type": "string", "minLength": 2, "maxLength": 4}},
        "required": ["tag"],
    }
    model = data_model_from_schema(schema)
    tag = model.get_schema()["properties"]["tag"]
    assert (tag["minLength"], tag["maxLength"]) == (2, 4)
    with pytest.raises(ValueError, match=r"\$\.tag\.maxLength"):
        data_model_from_schema(
            {"type": "object", "properties": {"tag": {"type": "string", "maxLength": -1}}}
        )
