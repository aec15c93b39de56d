"""The `Metric` base class: a stateful, per-sample score that is monitored, not optimised."""

from __future__ import annotations

import abc
from typing import Any

from optimizer_core.datamodels import JsonDict
from optimizer_core.rewards.reward import as_json, snake_case, to_number, validate_mask
from optimizer_core.utils.json_utils import apply_mask

__all__ = ["Metric"]


class Metric(abc.ABC):
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

    def __init__(
        self,
        *,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
    ) -> None:
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"`name` must be a non-empty string or None, got {name!r}")
        self.name: str = name or snake_case(type(self).__name__)
        self.in_mask = validate_mask(in_mask, argument="in_mask")
        self.out_mask = validate_mask(out_mask, argument="out_mask")

    def mask(self, json: JsonDict) -> JsonDict:
        """Apply this metric's `in_mask` and `out_mask` to a JSON dict."""
        if self.in_mask is None and self.out_mask is None:
            return json
        return apply_mask(json, in_mask=self.in_mask, out_mask=self.out_mask)

    def prepare(self, value: Any) -> Any:
        """Turn one sample into what `call` receives: the masked JSON dict, or None."""
        json = as_json(value)
        return None if json is None else self.mask(json)

    async def __call__(self, y_true: Any, y_pred: Any) -> float:
        """The value of one sample; the state is left unchanged.

        Args:
            y_true: the ground truth (DataModel, dict or None).
            y_pred: the prediction (DataModel, dict, or None when it failed).

        Raises:
            RewardError: when `call` returns something that is not a finite number.
        """
        if y_pred is None:
            return 0.0
        value = await self.call(self.prepare(y_true), self.prepare(y_pred))
        return to_number(value, what=f"metric {self.name!r}")

    @abc.abstractmethod
    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> float:
        """Score one masked sample. `y_pred` is never None here."""

    @abc.abstractmethod
    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        """Fold one sample into the state."""

    @abc.abstractmethod
    def result(self) -> float:
        """The aggregate over the samples seen since the last reset."""

    @abc.abstractmethod
    def reset_state(self) -> None:
        """Forget every sample seen."""

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible."""
        return {"name": self.name, "in_mask": self.in_mask, "out_mask": self.out_mask}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        """Rebuild a metric from `get_config()`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"
