"""FieldRulesMetric: the field rules of `optimizer_core.rewards.field_rules`, as a metric."""

from __future__ import annotations

from typing import Any

from optimizer_core.metrics.metric import Metric
from optimizer_core.rewards.field_rules import FieldRulesScorer

__all__ = ["FieldRulesMetric"]


class FieldRulesMetric(FieldRulesScorer, Metric):
    """The mean over the rows of the field rules' weighted score, monitored beside the reward.

    The same rules and comparisons as the `FieldRules` reward (see
    `optimizer_core.rewards.field_rules`): one comparison and weight per output
    field, a row scoring their weighted mean. `result()` is 0.0 before any row.
    Its family also finds it as ``"field_rules"``.

    Args:
        rules: the rules, each ``{"field", "comparison", "weight"}`` plus
            ``"tolerance"`` / ``"relative"`` (numeric) or ``"pattern"`` (regex). Required.
        name: the name it is logged under (default ``"field_rules_metric"``).

    Example:
        ```python
        metric = FieldRulesMetric(rules=[{"field": "total", "comparison": "numeric",
                                          "tolerance": 1}])
        await metric({"total": 42}, {"total": 41.5})  # 1.0
        ```
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.total = 0.0
        self.count = 0

    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        # Rows are scored concurrently: read the total only once the score is in.
        value = await self.score(y_true, y_pred)
        self.total += value
        self.count += 1

    def result(self) -> float:
        return self.total / self.count if self.count else 0.0

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0
