"""MeanMetricWrapper: the running mean of a per-sample function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from optimizer_core.metrics.metric import Metric
from optimizer_core.rewards.reward_wrappers import FunctionScorer

__all__ = ["MeanMetricWrapper"]


class MeanMetricWrapper(FunctionScorer, Metric):
    """A metric whose result is the mean of ``fn(y_true, y_pred, **kwargs)`` over the samples.

    `fn` may be ``async def`` or a plain ``def``. It receives objects that
    support ``.get(key)``: the DataModels (or dicts) exactly as given when no mask
    is set, and the masked JSON dicts when a mask or a mask pattern is set. A
    ``None`` prediction counts as a sample worth 0.0 (`fn` is not called). A
    result that is not a finite number raises `RewardError` naming the metric.
    `result()` is 0.0 before any sample.

    Args:
        fn: the per-sample function. Register it with
            ``@saving.register_synalinks_serializable()`` so the metric can be saved.
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
        async def my_metric(y_true, y_pred):
            return float(y_true.get("x") == y_pred.get("x"))

        metric = MeanMetricWrapper(fn=my_metric)
        ```
    """

    default_name = "mean_metric_wrapper"

    def __init__(self, fn: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(fn, **kwargs)
        self.total = 0.0
        self.count = 0

    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        value = await self.score(y_true, y_pred)
        self.total += value
        self.count += 1

    def result(self) -> float:
        return self.total / self.count if self.count else 0.0

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0
