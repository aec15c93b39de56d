"""User settings: declared per class, completed from the constructor, true to `__init__`.

`test_every_built_in_declares_its_settings_truly` walks every built-in reward,
metric and optimizer, so a new class whose declaration disagrees with its
constructor (an undeclared argument, a default, a type, a range its
``__init__`` does not enforce) fails here.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import pytest

import optimizer_core as oc
from optimizer_core.saving import family, register_synalinks_serializable
from optimizer_core.saving.params import (
    Param,
    check_params,
    check_value,
    completed,
    constructor_arguments,
    declared_params,
    needs_of,
    user_params,
)


@register_synalinks_serializable(package="ParamsTests")
async def constant_score(y_true: Any, y_pred: Any) -> float:
    return 1.0


class JudgeProgram:
    """A judge stand-in: an async callable with a config."""

    async def __call__(self, inputs: Any) -> dict[str, float]:
        return {"reward": 1.0}

    def get_config(self) -> dict[str, Any]:
        return {}


#: What a test supplies for each need.
NEEDS: dict[str, Any] = {
    "language_model": oc.FakeLanguageModel(),
    "embedding_model": oc.FakeEmbeddingModel(),
    "fn": constant_score,
    "program": JudgeProgram(),
}

BUILT_INS = [
    (kind, cls) for kind in ("reward", "metric", "optimizer") for cls in family(kind).built_ins
]
IDS = [f"{kind}:{cls.__name__}" for kind, cls in BUILT_INS]


#: A valid value of each required setting (one without a default), by name.
REQUIRED: dict[str, Any] = {"rules": [{"field": "answer", "comparison": "exact"}]}


def build(cls: type[Any], **settings: Any) -> Any:
    required = {p.name: REQUIRED[p.name] for p in user_params(cls) if p.required}
    return cls(**{need: NEEDS[need] for need in needs_of(cls)}, **{**required, **settings})


def lowest(param: Param) -> Any:
    """The lowest value `param`'s range allows."""
    assert param.minimum is not None
    if not param.exclusive_minimum:
        return int(param.minimum) if param.type == "int" else param.minimum
    return int(param.minimum) + 1 if param.type == "int" else param.minimum + 1e-3


def highest(param: Param) -> Any:
    """The highest value `param`'s range allows."""
    assert param.maximum is not None
    if not param.exclusive_maximum:
        return int(param.maximum) if param.type == "int" else param.maximum
    return int(param.maximum) - 1 if param.type == "int" else param.maximum - 1e-3


def past_bounds(param: Param) -> list[Any]:
    """Values just outside `param`'s declared range or choices."""
    step = 1 if param.type == "int" else 0.5
    values: list[Any] = []
    if param.minimum is not None:
        values.append(param.minimum if param.exclusive_minimum else param.minimum - step)
    if param.maximum is not None:
        values.append(param.maximum if param.exclusive_maximum else param.maximum + step)
    if param.choices is not None:
        values.append("not-" + "-".join(param.choices))
    return [int(v) if param.type == "int" else v for v in values]


@pytest.mark.parametrize(("kind", "cls"), BUILT_INS, ids=IDS)
def test_every_built_in_declares_its_settings_truly(kind: str, cls: type[Any]) -> None:
    arguments = constructor_arguments(cls)
    needs = needs_of(cls)
    declared = declared_params(cls)
    undeclared = set(arguments) - set(needs) - set(declared)
    assert not undeclared, f"{cls.__name__}: declare {sorted(undeclared)} (Param or needs)"

    settings = user_params(cls)
    default_object = build(cls)
    config = default_object.get_config()
    for param in settings:
        assert param.description, f"{cls.__name__}.{param.name}: describe it"
        assert param.label
        if param.required:  # no default: `build` gives it REQUIRED's value
            assert param.name in REQUIRED, f"{cls.__name__}.{param.name}: add it to REQUIRED"
            check_value(param, REQUIRED[param.name])
            continue
        assert param.default == arguments[param.name][0].default, param.name
        if param.name in config:
            assert config[param.name] == param.default, f"{cls.__name__}.{param.name}"
        check_value(param, param.default)  # the default is a valid value
        for value in past_bounds(param):
            with pytest.raises((ValueError, TypeError)):
                build(cls, **{param.name: value})  # __init__ enforces the declared range
        for choice in param.choices or ():
            build(cls, **{param.name: choice})
    # ... and accepts all of it: every setting at its lowest together, then each at its highest.
    lows = {p.name: lowest(p) for p in settings if p.minimum is not None}
    build(cls, **lows)
    for param in settings:
        if param.maximum is not None:
            build(cls, **{**lows, param.name: highest(param)})


def test_the_catalogue_of_the_built_ins() -> None:
    omega = {p.name: p for p in user_params(oc.optimizers.OMEGA)}
    assert needs_of(oc.optimizers.OMEGA) == ("embedding_model", "language_model")
    assert "distance_function" not in omega and "name" not in omega
    assert omega["algorithm"].choices == ("dns", "ga")
    assert omega["merging_rate"].minimum == 0 and omega["merging_rate"].maximum == 1
    assert omega["mutation_temperature"].exclusive_minimum
    assert omega["seed"].type == "int" and omega["seed"].nullable and omega["seed"].default is None
    assert omega["population_size"].minimum == 2
    assert omega["instructions"].label == "Optimizer instructions"
    masks = {p.name: p for p in user_params(oc.metrics.F1Score)}
    assert list(masks) == ["average", "in_mask", "out_mask"] and masks["in_mask"].type == "fields"
    average = masks["average"]
    assert (average.type, average.default, average.nullable) == ("str", "samples", True)
    assert average.choices == ("samples", "micro", "macro", "weighted")
    # Patterns are settings for configs and code; the form picks fields by name.
    everything = [p.name for p in user_params(oc.metrics.F1Score, offered_only=False)]
    assert {"in_mask_pattern", "out_mask_pattern"} <= set(everything)
    assert needs_of(oc.metrics.F1Score) == ()  # MeanMetricWrapper's `fn` is not its argument
    assert needs_of(oc.metrics.MeanMetricWrapper) == ("fn",)


class Base:
    needs = frozenset({"language_model"})
    user_params = (Param("size", "how big", minimum=1), Param("name", "logs", offered=False))

    def __init__(
        self, *, language_model: Any = None, size: int = 3, name: str | None = None
    ) -> None:
        pass


class Child(Base):
    user_params = (Param("mode", "how", choices=("a", "b")),)

    def __init__(
        self,
        *,
        mode: Literal["a", "b"] = "a",
        ratio: float | None = 0.5,
        tags: list[str] | None = None,
        opaque: object = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)


def test_settings_add_up_and_follow_kwargs_to_the_parent() -> None:
    assert list(constructor_arguments(Child)) == [
        "mode",
        "ratio",
        "tags",
        "opaque",
        "language_model",
        "size",
        "name",
    ]
    settings = {p.name: p for p in user_params(Child)}
    # Undeclared but typed arguments are offered; `opaque` (no setting type) and the
    # need and the hidden `name` are not.
    assert list(settings) == ["mode", "ratio", "tags", "size"]
    assert settings["mode"].choices == ("a", "b") and settings["mode"].type == "str"
    assert settings["ratio"].type == "float" and settings["ratio"].nullable
    assert settings["tags"].type == "str_list" and settings["tags"].description == ""
    assert settings["size"].minimum == 1 and settings["size"].label == "Size"
    assert not settings["size"].required
    assert "name" in {p.name for p in user_params(Child, offered_only=False)}


def test_a_declaration_that_contradicts_the_constructor_is_refused() -> None:
    class Missing(Base):
        user_params = (Param("colour", "no such argument"),)

    with pytest.raises(TypeError, match="declares `colour`, which its constructor lacks"):
        user_params(Missing)

    class WrongDefault(Base):
        user_params = (Param("size", "how big", default=4),)

    with pytest.raises(TypeError, match="default 4 but the constructor's is 3"):
        user_params(WrongDefault)

    class WrongType(Base):
        user_params = (Param("size", "how big", type="str"),)

    with pytest.raises(TypeError, match="declared 'str' but annotated 'int'"):
        user_params(WrongType)

    class Untyped(Base):
        user_params = (Param("thing", "what"),)

        def __init__(self, *, thing: object = None) -> None:
            pass

    with pytest.raises(TypeError, match="declare it"):
        user_params(Untyped)
    with pytest.raises(ValueError, match="`type` must be one of"):
        Param("x", type="decimal")


@pytest.mark.parametrize(
    ("param", "value", "error", "words"),
    [
        (Param("n", type="int", minimum=2), 1, ValueError, "`n` must be >= 2, got 1"),
        (Param("n", type="int"), 2.5, TypeError, "`n` must be an integer, got 2.5"),
        (Param("n", type="int"), True, TypeError, "an integer"),
        (Param("t", type="float", minimum=0, exclusive_minimum=True), 0, ValueError, "> 0"),
        (Param("t", type="float", maximum=1, exclusive_maximum=True), 1.0, ValueError, "< 1"),
        (Param("t", type="float", maximum=1), 1.5, ValueError, "<= 1"),
        (Param("t", type="float"), math.nan, TypeError, "a number"),
        (Param("b", type="bool"), 1, TypeError, "true or false"),
        (Param("s", type="str", choices=("x",)), "y", ValueError, "one of ['x']"),
        (Param("m", type="fields"), "answer", TypeError, "a list of field names"),
        (Param("m", type="fields"), ["a", 1], TypeError, "a list of field names"),
        (Param("n", type="int", default=1), None, TypeError, "got None"),
    ],
)
def test_check_value_names_the_argument(param: Param, value: Any, error: type, words: str) -> None:
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        check_value(completed(param), value)


def test_check_value_accepts_what_the_declaration_allows() -> None:
    check_value(completed(Param("seed", type="int", default=None)), None)
    check_value(completed(Param("t", type="float", minimum=0)), 0)
    check_value(completed(Param("t", type="float")), 3)  # an int where a float goes
    check_value(completed(Param("m", type="fields", default=None)), ["answer"])
    check_params(
        user_params(oc.optimizers.RandomFewShot), {"population_size": 2, "unknown": object()}
    )
    with pytest.raises(TypeError, match="`population_size` must be an integer"):
        check_params(user_params(oc.optimizers.RandomFewShot), {"population_size": 2.5})


def test_completed_fills_label_nullable_and_required() -> None:
    seed = completed(Param("seed", type="int", default=None))
    assert (seed.label, seed.nullable, seed.required) == ("Seed", True, False)
    epochs = completed(Param("epochs", type="int"))
    assert epochs.required and epochs.default is None
    with pytest.raises(TypeError, match="declare its type"):
        completed(Param("x"))
