"""One `Family` behind every family's get / serialize / deserialize, and its members."""

from __future__ import annotations

import json
from typing import Any

import pytest

import optimizer_core as oc
from optimizer_core import callbacks, language_models, metrics, modules, optimizers, rewards
from optimizer_core.saving import family, register_synalinks_serializable
from optimizer_core.saving.params import Param


@register_synalinks_serializable(package="FamilyTests")
class LengthMatch(oc.rewards.Reward):
    """1.0 when the prediction's JSON is about as long as the ground truth's."""

    user_params = (Param("tolerance", "characters of difference allowed", minimum=0),)

    def __init__(self, *, tolerance: int = 2, **kwargs: Any) -> None:
        if tolerance < 0:
            raise ValueError(f"`tolerance` must be >= 0, got {tolerance}")
        super().__init__(**kwargs)
        self.tolerance = tolerance

    async def call(self, y_true: Any, y_pred: Any) -> float:
        return float(abs(len(json.dumps(y_true)) - len(json.dumps(y_pred))) <= self.tolerance)

    def get_config(self) -> dict[str, Any]:
        return {"tolerance": self.tolerance, **super().get_config()}


@register_synalinks_serializable(package="FamilyTests")
async def always_half(y_true: Any, y_pred: Any) -> float:
    return 0.5


# (family module, built-in class, spellings of its name)
CASES: list[tuple[Any, type[Any], list[str]]] = [
    (rewards, rewards.ExactMatch, ["ExactMatch", "exact_match", "EXACT-MATCH", "exactmatch"]),
    (metrics, metrics.F1Score, ["F1Score", "f1_score", "f1-score"]),
    (optimizers, optimizers.RandomFewShot, ["RandomFewShot", "random_few_shot", "randomfewshot"]),
    (callbacks, callbacks.ProgressBar, ["ProgressBar", "progress_bar", "Progress-Bar"]),
    (language_models, oc.FakeLanguageModel, ["FakeLanguageModel", "fake_language_model"]),
]


@pytest.mark.parametrize(
    ("module", "cls", "names"), CASES, ids=lambda c: getattr(c, "__name__", "")
)
def test_get_finds_a_built_in_by_every_spelling(module: Any, cls: type, names: list[str]) -> None:
    for name in names:
        assert type(module.get(name)) is cls, name
    path = f"{cls.__module__}.{cls.__qualname__}"
    assert type(module.get(path)) is cls


@pytest.mark.parametrize(
    ("module", "cls", "names"), CASES, ids=lambda c: getattr(c, "__name__", "")
)
def test_get_takes_a_config_an_instance_and_a_class(
    module: Any, cls: type, names: list[str]
) -> None:
    instance = cls()
    assert module.get(instance) is instance
    again = module.get(json.loads(json.dumps(module.serialize(instance))))
    assert type(again) is cls
    assert type(module.get(cls)) is cls
    assert type(module.deserialize(module.serialize(instance))) is cls


def test_modules_get_a_config_and_an_instance() -> None:
    class Q(oc.DataModel):
        q: str

    layer = modules.InputLayer(data_model=Q)
    assert modules.get(layer) is layer
    assert type(modules.get(modules.serialize(layer))) is modules.InputLayer
    with pytest.raises(ValueError, match="module 'generator' needs arguments"):
        modules.get("generator")


def test_aliases_keep_the_reference_library_names() -> None:
    for name in ("RewardFunctionWrapper", "reward_function_wrapper"):
        assert family("reward").find(name) is rewards.MeanRewardWrapper


def test_a_registered_subclass_is_a_member_found_by_its_registered_name() -> None:
    rewards_family = family("reward")
    assert LengthMatch in rewards_family.members()
    assert rewards_family.name_of(LengthMatch) == "FamilyTests>LengthMatch"
    assert rewards_family.find("FamilyTests>LengthMatch") is LengthMatch
    assert type(rewards.get("FamilyTests>LengthMatch")) is LengthMatch
    # A registered name is exact: no other spelling, and no lookalike of a built-in.
    assert rewards_family.find("familytests>lengthmatch") is None
    assert rewards_family.find("Exact>Match") is None
    # Not a member of another family.
    assert family("metric").find("FamilyTests>LengthMatch") is None
    assert LengthMatch not in family("metric").members()


def test_rewards_and_metrics_wrap_registered_functions() -> None:
    for module, wrapper in (
        (rewards, rewards.MeanRewardWrapper),
        (metrics, metrics.MeanMetricWrapper),
    ):
        by_name = module.get("FamilyTests>always_half")
        assert isinstance(by_name, wrapper) and by_name.fn is always_half
        assert isinstance(module.get(always_half), wrapper)
    with pytest.raises(TypeError):
        optimizers.get(always_half)


def test_unknown_names_list_the_built_ins() -> None:
    with pytest.raises(ValueError, match=r"unknown optimizer 'adam'.*'OMEGA', 'RandomFewShot'"):
        optimizers.get("adam")
    with pytest.raises(ValueError, match=r"unknown reward 'nope'.*or function"):
        rewards.get("nope")
    with pytest.raises(ValueError, match="litellm model name"):
        language_models.get("nonsense")


def test_names_whose_class_needs_arguments_say_so() -> None:
    with pytest.raises(ValueError, match="callback 'program_checkpoint' needs arguments"):
        callbacks.get("program_checkpoint")
    with pytest.raises(ValueError, match="`language_model` is required"):
        optimizers.get("omega")


def test_a_litellm_model_name_is_a_language_model() -> None:
    model = language_models.get("openai/gpt-4.1-mini")
    assert isinstance(model, oc.LanguageModel) and model.model == "openai/gpt-4.1-mini"


def test_every_family_is_reachable_by_kind() -> None:
    for kind, module, name in [
        ("reward", rewards, "exact_match"),
        ("metric", metrics, "recall"),
        ("optimizer", optimizers, "random_few_shot"),
        ("callback", callbacks, "history"),
        ("module", modules, None),
        ("language model", language_models, "fake_embedding_model"),
    ]:
        members = family(kind)
        assert members.slot.kind == kind
        assert list(members.built_ins) == members.members()[: len(members.built_ins)]
        if name is not None:
            assert type(module.get(name)) is type(members.get(name))
    with pytest.raises(ValueError, match="unknown family 'loss'"):
        family("loss")


def test_describe_gives_the_catalogue_entry() -> None:
    entry = family("reward").describe(rewards.LMAsJudge)
    assert entry.name == "LMAsJudge"
    assert entry.label == "LM as judge"
    assert entry.description.startswith("A language model grades")
    assert entry.needs == ("language_model",)
    assert [p.name for p in entry.params] == [
        "score_type", "criteria", "instructions", "in_mask", "out_mask",
    ]  # fmt: skip
    scale = entry.params[0]
    assert (scale.type, scale.default, scale.nullable) == ("str", "Score", False)
    assert scale.choices == ("Score", "FineScore", "Rating", "Rating10", "Rating20")
    custom = family("reward").describe(LengthMatch)
    assert custom.name == "FamilyTests>LengthMatch"
    assert (
        custom.description
        == "1.0 when the prediction's JSON is about as long as the ground truth's."
    )
    tolerance = custom.params[0]
    assert (tolerance.name, tolerance.type, tolerance.default, tolerance.minimum) == (
        "tolerance",
        "int",
        2,
        0,
    )
