"""The `Metric` base class: a stateful, per-sample score that is monitored, not optimised."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any

from optimizer_core.rewards.reward import MaskedScorer

__all__ = ["Metric"]


class Metric(MaskedScorer):
    """A Keras-style stateful metric over (ground truth, prediction) samples.

    `call` scores one sample on its masked JSON. `update_state` folds one sample
    into the state, `result` reads the aggregate and `reset_state` clears it.
    Calling the metric is an update, as in Keras and the reference library:
    ``await metric(y_true, y_pred)`` folds the sample in and returns `result()`,
    the aggregate over every sample since the last reset. `score` gives one
    sample's own value and leaves the state alone.

    Args:
        name: the name it is logged under (default: the class name in snake_case).
        in_mask: keep only these fields (matched by base key, see
            `optimizer_core.utils.json_utils`) before scoring (default None).
        out_mask: drop these fields before scoring (default None).
        in_mask_pattern: a regex; the fields whose name matches are kept too (default None).
        out_mask_pattern: a regex; the fields whose name matches are dropped too (default None).

    Example:
        ```python
        metric = F1Score(in_mask=["answer"])
        await metric(y_true, y_pred)  # an update: returns the running result
        await metric.update_state(other_true, other_pred)
        metric.result()  # over both samples
        metric.reset_state()
        ```
    """

    kind = "metric"

    async def __call__(self, y_true: Any, y_pred: Any) -> Any:
        """Fold one sample into the state and return `result()` over every sample so far."""
        await self.update_state(y_true, y_pred)
        return self.result()

    def log_values(self, name: str) -> dict[str, float]:
        """What a log shows of `result()` under `name`.

        A number is logged as ``{name: value}``; a result by field (a mapping, such as
        `F1Score(average=None)`'s) as one entry per field, ``{f"{name}_{field}": value}``.
        """
        result = self.result()
        if isinstance(result, Mapping):
            return {f"{name}_{field}": float(value) for field, value in result.items()}
        return {name: float(result)}

    @abc.abstractmethod
    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        """Fold one sample into the state."""

    @abc.abstractmethod
    def result(self) -> Any:
        """The aggregate over the samples seen since the last reset.

        A number, or a mapping from field name to number for a metric that reports
        each field apart (see `log_values`).
        """

    @abc.abstractmethod
    def reset_state(self) -> None:
        """Forget every sample seen."""
