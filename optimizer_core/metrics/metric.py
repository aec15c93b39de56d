"""The `Metric` base class: a stateful, per-sample score that is monitored, not optimised."""

from __future__ import annotations

import abc
from typing import Any

from optimizer_core.rewards.reward import MaskedScorer

__all__ = ["Metric"]


class Metric(MaskedScorer):
    """A Keras-style stateful metric over (ground truth, prediction) samples.

    `call` scores one sample on its masked JSON; ``await metric(y_true, y_pred)``
    returns that per-sample value (0.0 for a ``None`` prediction) **without**
    changing the state. `update_state` folds one sample into the state,
    `result` reads the aggregate and `reset_state` clears it.

    Args:
        name: the name it is logged under (default: the class name in snake_case).
        in_mask: keep only these fields (matched by base key, see
            `optimizer_core.utils.json_utils`) before scoring (default None).
        out_mask: drop these fields before scoring (default None).

    Example:
        ```python
        metric = F1Score(in_mask=["answer"])
        await metric.update_state(y_true, y_pred)
        metric.result()
        metric.reset_state()
        ```
    """

    kind = "metric"

    async def __call__(self, y_true: Any, y_pred: Any) -> float:
        """The value of one sample; the state is left unchanged."""
        return await self.score(y_true, y_pred)

    @abc.abstractmethod
    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        """Fold one sample into the state."""

    @abc.abstractmethod
    def result(self) -> float:
        """The aggregate over the samples seen since the last reset."""

    @abc.abstractmethod
    def reset_state(self) -> None:
        """Forget every sample seen."""
