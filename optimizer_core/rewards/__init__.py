"""Rewards: score a prediction against its ground truth; the optimizers maximise them.

Look one up with `get`: ``get("exact_match")``, ``get("ExactMatch")``, a dict
from `serialize`, an instance (returned as is), or a plain function (wrapped in
`MeanRewardWrapper`). ``saving.family("reward")`` also lists the
members (built-ins and registered `Reward` subclasses) with their settings.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.rewards.cosine_similarity import CosineSimilarity
from optimizer_core.rewards.exact_match import ExactMatch
from optimizer_core.rewards.field_rules import FieldRules
from optimizer_core.rewards.lm_as_judge import LMAsJudge
from optimizer_core.rewards.program_as_judge import ProgramAsJudge
from optimizer_core.rewards.reward import Reward, Scored
from optimizer_core.rewards.reward_wrappers import MeanRewardWrapper, RewardFunctionWrapper
from optimizer_core.saving.families import Family

__all__ = [
    "CosineSimilarity",
    "ExactMatch",
    "FieldRules",
    "LMAsJudge",
    "MeanRewardWrapper",
    "ProgramAsJudge",
    "Reward",
    "RewardFunctionWrapper",
    "Scored",
    "deserialize",
    "get",
    "serialize",
]

_FAMILY: Family[Reward] = Family(
    kind="reward",
    base=Reward,
    # In the order a catalogue shows them; the first is a run form's default.
    built_ins=(
        ExactMatch,
        FieldRules,
        LMAsJudge,
        CosineSimilarity,
        ProgramAsJudge,
        MeanRewardWrapper,
    ),
    wrap=MeanRewardWrapper,
    aliases={
        # The reference library's name for MeanRewardWrapper.
        "RewardFunctionWrapper": MeanRewardWrapper,
        "reward_function_wrapper": MeanRewardWrapper,
    },
)

#: Class names, snake_case names and aliases of the built-in rewards.
ALL_OBJECTS: dict[str, type[Reward]] = _FAMILY.objects


def serialize(reward: Reward) -> dict[str, Any]:
    """The reward as ``{"module", "class_name", "registered_name", "config"}``."""
    return _FAMILY.serialize(reward)


def deserialize(config: dict[str, Any]) -> Reward:
    """Rebuild a reward from `serialize`'s output (a serialised function is wrapped).

    Raises:
        SerializationError: when the config names nothing known.
        ValueError: when it rebuilds something that is not a reward.
    """
    return _FAMILY.deserialize(config)


def get(identifier: Any) -> Reward:
    """Find a reward by name, config, instance or function.

    Args:
        identifier: a built-in name in any spelling (``"exact_match"``,
            ``"ExactMatch"``), the registered name of a custom function or `Reward`
            subclass (``"Custom>my_reward"``),
            a dict from `serialize`, a `Reward` instance (returned as is), a
            `Reward` subclass (instantiated with no arguments) or a function
            ``(y_true, y_pred) -> float`` (wrapped in `MeanRewardWrapper`).

    Raises:
        ValueError: for an unknown name, a name whose class needs arguments
            (``"lm_as_judge"``), or an unsupported identifier.

    Example:
        ```python
        rewards.get("exact_match")
        ```
    """
    return _FAMILY.get(identifier)
