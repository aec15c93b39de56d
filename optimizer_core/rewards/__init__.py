"""Rewards: score a prediction against its ground truth; the optimizers maximise them.

Look one up with `get`: ``get("exact_match")``, ``get("ExactMatch")``, a dict
from `serialize`, an instance (returned as is), or a plain function (wrapped in
`MeanRewardWrapper`).
"""

from __future__ import annotations

import inspect
from typing import Any

from optimizer_core.rewards.cosine_similarity import CosineSimilarity
from optimizer_core.rewards.exact_match import ExactMatch
from optimizer_core.rewards.lm_as_judge import LMAsJudge
from optimizer_core.rewards.program_as_judge import ProgramAsJudge
from optimizer_core.rewards.reward import Reward, snake_case
from optimizer_core.rewards.reward_wrappers import MeanRewardWrapper, RewardFunctionWrapper
from optimizer_core.saving.object_registry import (
    deserialize_object,
    get_registered_object,
    serialize_object,
)

__all__ = [
    "CosineSimilarity",
    "ExactMatch",
    "LMAsJudge",
    "MeanRewardWrapper",
    "ProgramAsJudge",
    "Reward",
    "RewardFunctionWrapper",
    "deserialize",
    "get",
    "serialize",
]

_BUILT_INS: tuple[type[Reward], ...] = (
    CosineSimilarity,
    ExactMatch,
    LMAsJudge,
    MeanRewardWrapper,
    ProgramAsJudge,
)

#: Class names and snake_case names of the built-in rewards, plus the reference
#: library's ``RewardFunctionWrapper``.
ALL_OBJECTS: dict[str, type[Reward]] = {
    **{cls.__name__: cls for cls in _BUILT_INS},
    **{snake_case(cls.__name__): cls for cls in _BUILT_INS},
    "RewardFunctionWrapper": MeanRewardWrapper,
    "reward_function_wrapper": MeanRewardWrapper,
}


def serialize(reward: Reward) -> dict[str, Any]:
    """The reward as ``{"module", "class_name", "registered_name", "config"}``."""
    return serialize_object(reward)


def deserialize(config: dict[str, Any]) -> Reward:
    """Rebuild a reward from `serialize`'s output (a serialised function is wrapped).

    Raises:
        SerializationError: when the config names nothing known.
        TypeError: when it rebuilds something that is not a reward.
    """
    return _as_reward(deserialize_object(config, module_objects=dict(ALL_OBJECTS)), config)


def get(identifier: Any) -> Reward:
    """Find a reward by name, config, instance or function.

    Args:
        identifier: a built-in name (``"exact_match"`` or ``"ExactMatch"``), the
            registered name of a custom function or class (``"Custom>my_reward"``),
            a dict from `serialize`, a `Reward` instance (returned as is), a
            `Reward` subclass (instantiated with no arguments) or a function
            ``(y_true, y_pred) -> float`` (wrapped in `MeanRewardWrapper`).

    Raises:
        ValueError: for an unknown name or an unsupported identifier.

    Example:
        ```python
        rewards.get("exact_match")
        ```
    """
    if isinstance(identifier, Reward):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier in ALL_OBJECTS:
            return ALL_OBJECTS[identifier]()
        try:
            found = get_registered_object(identifier)
        except ValueError:
            known = sorted(name for name in ALL_OBJECTS if name[0].isupper())
            raise ValueError(
                f"unknown reward {identifier!r}; built-ins are {known}, or pass the "
                "registered name of a custom function"
            ) from None
        return _as_reward(found, identifier)
    return _as_reward(identifier, identifier)


def _as_reward(found: Any, identifier: Any) -> Reward:
    if isinstance(found, Reward):
        return found
    if inspect.isclass(found):
        if issubclass(found, Reward):
            return found()
    elif callable(found):
        return MeanRewardWrapper(found)
    raise ValueError(f"cannot turn {identifier!r} into a reward")
