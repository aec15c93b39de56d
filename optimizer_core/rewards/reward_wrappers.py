"""MeanRewardWrapper: turn a user function into a Reward."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from optimizer_core.rewards.reward import MaskedScorer, Reward, snake_case
from optimizer_core.saving.object_registry import FUNCTION, deserialize_object, serialize_object

__all__ = ["FunctionScorer", "MeanRewardWrapper", "RewardFunctionWrapper", "function_name"]


def function_name(fn: Callable[..., Any], default: str) -> str:
    """The name a wrapped function is logged under: its ``__name__``, else `default`."""
    name = getattr(fn, "__name__", None)
    if isinstance(name, str) and name and not name.startswith("<"):
        return name
    if not inspect.isfunction(fn) and not inspect.ismethod(fn):
        return snake_case(type(fn).__name__)
    return default


class FunctionScorer(MaskedScorer):
    """Scores with a user function ``fn(y_true, y_pred, **kwargs)``, sync or async.

    Shared by `MeanRewardWrapper` and `MeanMetricWrapper`: `fn` receives the
    samples exactly as given when no mask is set (DataModels support ``.get``),
    and the masked JSON dicts otherwise; extra keyword arguments are saved in the
    config, so they must be JSON-compatible.
    """

    #: The name used when `fn` has none (a lambda, a partial...).
    default_name = "function_scorer"
    needs = frozenset({"fn"})

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"`fn` must be a function, got {type(fn).__name__}")
        super().__init__(
            name=name or function_name(fn, self.default_name),
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )
        self.fn = fn
        self.fn_kwargs = dict(kwargs)

    def prepare(self, value: Any) -> Any:
        """The sample as given when no mask is set, else the masked JSON dict."""
        if not self.masked:
            return value
        return super().prepare(value)

    async def call(self, y_true: Any, y_pred: Any) -> Any:
        result = self.fn(y_true, y_pred, **self.fn_kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    def get_config(self) -> dict[str, Any]:
        return {"fn": serialize_object(self.fn), **super().get_config(), **self.fn_kwargs}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        config = dict(config)
        fn = config.pop("fn")
        if isinstance(fn, dict):
            fn = deserialize_object(fn, slot=FUNCTION)
        return cls(fn, **config)


class MeanRewardWrapper(FunctionScorer, Reward):
    """A reward computed by a user function ``fn(y_true, y_pred, **kwargs) -> float``.

    `fn` may be ``async def`` or a plain ``def``. It receives objects that
    support ``.get(key)``: the DataModels (or dicts) exactly as given when no mask
    is set, and the masked JSON dicts when a mask or a mask pattern is set. A
    ``None`` prediction scores 0.0 without calling `fn`. A result that is not a
    finite number raises `RewardError` naming the reward.

    The reference library calls this class ``RewardFunctionWrapper``; that name is
    exported as an alias.

    Args:
        fn: the scoring function. Register it with
            ``@saving.register_synalinks_serializable()`` so the reward can be saved.
        name: the name it is logged under (default: ``fn.__name__``).
        in_mask: keep only these fields before calling `fn` (default None).
        out_mask: drop these fields before calling `fn` (default None).
        in_mask_pattern: keep the fields whose name matches this regex too (default None).
        out_mask_pattern: drop the fields whose name matches this regex too (default None).
        **kwargs: extra keyword arguments passed to `fn` on every call (saved in
            the config, so they must be JSON-compatible).

    Example:
        ```python
        @saving.register_synalinks_serializable()
        async def my_reward(y_true, y_pred):
            return float(y_true.get("answer") == y_pred.get("answer"))

        reward = MeanRewardWrapper(fn=my_reward)
        ```
    """

    default_name = "mean_reward_wrapper"


RewardFunctionWrapper = MeanRewardWrapper
