"""MeanMetricWrapper: the running mean of a per-sample function."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from optimizer_core.metrics.metric import Metric
from optimizer_core.rewards.reward_wrappers import function_name
from optimizer_core.saving.object_registry import deserialize_object, serialize_object

__all__ = ["MeanMetricWrapper"]


class MeanMetricWrapper(Metric):
    """A metric whose result is the mean of ``fn(y_true, y_pred, **kwargs)`` over the samples.

    `fn` may be ``async def`` or a plain ``def``. It receives objects that
    support ``.get(key)``: the DataModels (or dicts) exactly as given when no mask
    is set, and the masked JSON dicts when `in_mask` or `out_mask` is set. A
    ``None`` prediction counts as a sample worth 0.0 (`fn` is not called). A
    result that is not a finite number raises `RewardError` naming the metric.
    `result()` is 0.0 before any sample.

    Args:
        fn: the per-sample function. Register it with
            ``@saving.register_synalinks_serializable()`` so the metric can be saved.
        name: the name it is logged under (default: ``fn.__name__``).
        in_mask: keep only these fields before calling `fn` (default None).
        out_mask: drop these fields before calling `fn` (default None).
        **kwargs: extra keyword arguments passed to `fn` on every call (saved in
            the config, so they must be JSON-compatible).

    Example:
        ```python
        @saving.register_synalinks_serializable()
        async def my_metric(y_true, y_pred):
            return float(y_true.get("x") == y_pred.get("x"))

        metric = MeanMetricWrapper(fn=my_metric)
        ```
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"`fn` must be a function, got {type(fn).__name__}")
        super().__init__(
            name=name or function_name(fn, "mean_metric_wrapper"),
            in_mask=in_mask,
            out_mask=out_mask,
        )
        self.fn = fn
        self.fn_kwargs = dict(kwargs)
        self.total = 0.0
        self.count = 0

    def prepare(self, value: Any) -> Any:
        """The sample as given when no mask is set, else the masked JSON dict."""
        if self.in_mask is None and self.out_mask is None:
            return value
        return super().prepare(value)

    async def call(self, y_true: Any, y_pred: Any) -> Any:
        result = self.fn(y_true, y_pred, **self.fn_kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        value = await self(y_true, y_pred)
        self.total += value
        self.count += 1

    def result(self) -> float:
        return self.total / self.count if self.count else 0.0

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0

    def get_config(self) -> dict[str, Any]:
        return {"fn": serialize_object(self.fn), **super().get_config(), **self.fn_kwargs}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> MeanMetricWrapper:
        config = dict(config)
        fn = config.pop("fn")
        if isinstance(fn, dict):
            fn = deserialize_object(fn)
        return cls(fn, **config)
