"""One corpus of hostile program documents, reused by every entry point's tests.

Each `Hostile` entry changes one place of a valid, compiled program document so
that it names code: an import path that walks a module's own imports to
``os.system`` or ``subprocess.Popen``, a builtin, a dunder attribute, a
registered class in the wrong place, a DataModel schema with a class hint...
The payloads try to create a marker file; every test asserts the document is
refused *and* the marker does not exist.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import optimizer_core as oc

JsonDict = dict[str, Any]


class Question(oc.DataModel):
    query: str


class Reply(oc.DataModel):
    answer: str


def base_document() -> JsonDict:
    """A valid compiled program: Input -> Generator, reward, one metric, an optimizer."""

    async def build() -> oc.Program:
        inputs = oc.Input(data_model=Question, name="question")
        outputs = await oc.Generator(
            data_model=Reply, language_model=oc.LanguageModel(model="openai/x"), name="reply"
        )(inputs)
        program = oc.Program(inputs=inputs, outputs=outputs, name="hostile")
        program.compile(reward="exact_match", optimizer="random_few_shot", metrics=["f1_score"])
        return program

    return asyncio.run(build()).to_json()


# Where a payload goes, and the path a refusal must name.
SLOTS: dict[str, str] = {
    "module": "program.modules[1].module",
    "language_model": "program.modules[1].module.config.language_model",
    "reward": "compile_config.reward",
    "reward_fn": "compile_config.reward.config.fn",
    "metric": "compile_config.metrics[0]",
    "optimizer": "compile_config.optimizer",
    "data_model": "program.modules[1].module.config.data_model",
}


def _put(document: JsonDict, slot: str, value: Any) -> None:
    generator = document["program"]["modules"][1]["module"]
    compile_config = document["compile_config"]
    if slot == "module":
        document["program"]["modules"][1]["module"] = value
    elif slot == "language_model":
        generator["config"]["language_model"] = value
    elif slot == "reward":
        compile_config["reward"] = value
    elif slot == "reward_fn":
        compile_config["reward"] = {
            "module": "optimizer_core.rewards.reward_wrappers",
            "class_name": "MeanRewardWrapper",
            "registered_name": "optimizer_core.rewards.reward_wrappers.MeanRewardWrapper",
            "config": {"fn": value, "name": "hostile"},
        }
    elif slot == "metric":
        compile_config["metrics"][0] = value
    elif slot == "optimizer":
        compile_config["optimizer"] = value
    elif slot == "data_model":
        generator["config"]["data_model"] = value
    else:  # pragma: no cover - a typo in the corpus
        raise KeyError(slot)


def as_class(name: str, config: JsonDict) -> JsonDict:
    """A serialised object naming `name` the way `serialize_object` writes a class."""
    module, _, class_name = name.rpartition(".")
    return {"module": module, "class_name": class_name, "registered_name": name, "config": config}


def as_function(name: str) -> JsonDict:
    return {"class_name": "function", "config": name}


def _touch(marker: str) -> JsonDict:
    return {"command": f"touch {marker}"}


def _popen(marker: str) -> JsonDict:
    return {"args": ["touch", marker]}


def _open(marker: str) -> JsonDict:
    return {"file": marker, "mode": "w"}


def _source(marker: str) -> JsonDict:
    return {"source": f"open({marker!r}, 'w')"}


@dataclass(frozen=True)
class Hostile:
    """One hostile change: `id`, the `slot` it goes in, the `name` a refusal must cite."""

    id: str
    slot: str
    name: str
    payload: Callable[[str], Any]

    @property
    def path(self) -> str:
        return SLOTS[self.slot]

    def apply(self, document: JsonDict, marker: str) -> JsonDict:
        """A hostile copy of `document` whose payload tries to create `marker`."""
        hostile = copy.deepcopy(document)
        _put(hostile, self.slot, self.payload(marker))
        return hostile


def _class(id: str, slot: str, name: str, config: Callable[[str], JsonDict]) -> Hostile:
    return Hostile(id, slot, name, lambda marker: as_class(name, config(marker)))


def _function(id: str, slot: str, name: str) -> Hostile:
    return Hostile(id, slot, name, lambda marker: as_function(name))


def _schema_hint(key: str, value: Any) -> Callable[[str], JsonDict]:
    def payload(marker: str) -> JsonDict:
        schema = Reply.model_json_schema()
        schema["properties"]["answer"][key] = value(marker) if callable(value) else value
        return {"name": "Reply", "class": "", "schema": schema}

    return payload


def _field_named(field: str) -> Callable[[str], JsonDict]:
    def payload(marker: str) -> JsonDict:
        schema = Reply.model_json_schema()
        schema["properties"][field] = {"type": "string", "default": marker}
        return {"name": "Reply", "class": "", "schema": schema}

    return payload


SYSTEM_VIA_PROGRAM = "optimizer_core.programs.program.os.system"
POPEN_VIA_SERVER = "optimizer_core.local_models.server.subprocess.Popen"

CORPUS: list[Hostile] = [
    # The reported paths: a module's own imports walked to os.system / subprocess.Popen.
    _class("lm-os-system-via-program", "language_model", SYSTEM_VIA_PROGRAM, _touch),
    _class("module-os-system-via-program", "module", SYSTEM_VIA_PROGRAM, _touch),
    _class("lm-popen-via-local-server", "language_model", POPEN_VIA_SERVER, _popen),
    _class("module-popen-via-local-server", "module", POPEN_VIA_SERVER, _popen),
    _function("reward-fn-os-system-via-program", "reward", SYSTEM_VIA_PROGRAM),
    _function("wrapper-fn-os-system-via-program", "reward_fn", SYSTEM_VIA_PROGRAM),
    _class("optimizer-popen-via-local-server", "optimizer", POPEN_VIA_SERVER, _popen),
    _class("metric-os-system-via-program", "metric", SYSTEM_VIA_PROGRAM, _touch),
    # Other walks through imports.
    _class(
        "lm-import-module-via-registry",
        "language_model",
        "optimizer_core.saving.object_registry.importlib.import_module",
        lambda marker: {"name": "os"},
    ),
    _class(
        "module-open-via-json-codecs",
        "module",
        "optimizer_core.programs.program.json.codecs.builtins.open",
        _open,
    ),
    _class("reward-os-system-via-os-path", "reward", "os.path.os.system", _touch),
    # Builtins.
    _class("lm-builtins-open", "language_model", "builtins.open", _open),
    _class("module-builtins-eval", "module", "builtins.eval", _source),
    _class("reward-builtins-exec", "reward", "builtins.exec", _source),
    _class("metric-builtins-import", "metric", "builtins.__import__", lambda m: {"name": "os"}),
    _function("reward-fn-builtins-eval", "reward", "builtins.eval"),
    _function("wrapper-fn-builtins-exec", "reward_fn", "builtins.exec"),
    # os, subprocess, importlib.
    _class("lm-os-system", "language_model", "os.system", _touch),
    _class("optimizer-posix-system", "optimizer", "posix.system", _touch),
    _class("module-subprocess-popen", "module", "subprocess.Popen", _popen),
    _class("lm-subprocess-run", "language_model", "subprocess.run", _popen),
    _function("metric-fn-subprocess-getoutput", "metric", "subprocess.getoutput"),
    _class("lm-importlib", "language_model", "importlib.import_module", lambda m: {"name": "os"}),
    # Dunder attributes of registered classes.
    _class(
        "module-dunder-init",
        "module",
        "optimizer_core.modules.generator.Generator.__init__",
        lambda m: {},
    ),
    _class(
        "lm-dunder-class",
        "language_model",
        "optimizer_core.language_models.language_model.LanguageModel.__class__",
        lambda m: {"name": "X", "bases": [], "dict": {}},
    ),
    _class(
        "reward-dunder-subclasses",
        "reward",
        "optimizer_core.rewards.reward.Reward.__subclasses__",
        lambda m: {},
    ),
    _function(
        "wrapper-fn-dunder-globals",
        "reward_fn",
        "optimizer_core.programs.program.Program.from_json.__globals__",
    ),
    _class(
        "module-dunder-globals-os",
        "module",
        "optimizer_core.programs.program.Program.from_json.__globals__.os.system",
        _touch,
    ),
    # functools.partial, pickle, marshal.
    _class("lm-functools-partial", "language_model", "functools.partial", lambda m: {"func": "os"}),
    _function("reward-fn-pickle-loads", "reward", "pickle.loads"),
    _function("wrapper-fn-marshal-loads", "reward_fn", "marshal.loads"),
    _class("optimizer-pickle-unpickler", "optimizer", "pickle.Unpickler", lambda m: {"file": m}),
    # Names that are not registered although they sit in optimizer_core.
    _class(
        "lm-unregistered-library-internal",
        "language_model",
        "optimizer_core.testing.scripted_server.ScriptedServer",
        lambda m: {},
    ),
    _class("module-unregistered-custom", "module", "Custom>not_registered", lambda m: {}),
    # Registered classes in the wrong place.
    _class(
        "module-slot-holds-a-reward",
        "module",
        "optimizer_core.rewards.exact_match.ExactMatch",
        lambda m: {"name": "reply"},
    ),
    _class(
        "lm-slot-holds-a-module",
        "language_model",
        "optimizer_core.modules.generator.Generator",
        lambda m: {},
    ),
    _class(
        "reward-slot-holds-an-optimizer",
        "reward",
        "optimizer_core.optimizers.random_few_shot.RandomFewShot",
        lambda m: {},
    ),
    _class(
        "metric-slot-holds-a-reward",
        "metric",
        "optimizer_core.rewards.exact_match.ExactMatch",
        lambda m: {},
    ),
    _class(
        "optimizer-slot-holds-a-metric",
        "optimizer",
        "optimizer_core.metrics.token_overlap.F1Score",
        lambda m: {},
    ),
    _function(
        "wrapper-fn-holds-a-class", "reward_fn", "optimizer_core.modules.generator.Generator"
    ),
    # DataModel schemas that try to name code.
    Hostile(
        "schema-dunder-class", "data_model", "__class__", _schema_hint("__class__", "os.system")
    ),
    Hostile(
        "schema-py-object", "data_model", "py/object", _schema_hint("py/object", "subprocess.Popen")
    ),
    Hostile(
        "schema-x-python-class",
        "data_model",
        "x-python-class",
        _schema_hint("x-python-class", SYSTEM_VIA_PROGRAM),
    ),
    Hostile(
        "schema-class-hint",
        "data_model",
        "class",
        _schema_hint("class", SYSTEM_VIA_PROGRAM),
    ),
    Hostile("schema-field-dunder-base", "data_model", "__base__", _field_named("__base__")),
    Hostile(
        "schema-field-model-config", "data_model", "model_config", _field_named("model_config")
    ),
]

IDS = [entry.id for entry in CORPUS]
