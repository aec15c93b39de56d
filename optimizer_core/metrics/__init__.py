"""Metrics: figures monitored during training and evaluation, not optimised.

Look one up with `get`: ``get("f1_score")``, ``get("F1Score")``, a dict from
`serialize`, an instance (returned as is), or a plain function (wrapped in
`MeanMetricWrapper`). ``saving.family("metric")`` also lists the
members (built-ins and registered `Metric` subclasses) with their settings.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.metrics.field_rules import FieldRulesMetric
from optimizer_core.metrics.judge_metrics import LMAsJudgeMetric, ProgramAsJudgeMetric
from optimizer_core.metrics.metric import Metric
from optimizer_core.metrics.metrics_wrappers import MeanMetricWrapper
from optimizer_core.metrics.token_overlap import F1Score, Precision, Recall
from optimizer_core.saving.families import Family

__all__ = [
    "F1Score",
    "FieldRulesMetric",
    "LMAsJudgeMetric",
    "MeanMetricWrapper",
    "Metric",
    "Precision",
    "ProgramAsJudgeMetric",
    "Recall",
    "deserialize",
    "get",
    "serialize",
]

_FAMILY: Family[Metric] = Family(
    kind="metric",
    base=Metric,
    built_ins=(
        F1Score,
        FieldRulesMetric,
        LMAsJudgeMetric,
        MeanMetricWrapper,
        Precision,
        ProgramAsJudgeMetric,
        Recall,
    ),
    wrap=MeanMetricWrapper,
    # A run config names the configurable rewards alike as its reward and as its metrics.
    aliases={
        "FieldRules": FieldRulesMetric,
        "field_rules": FieldRulesMetric,
        "LMAsJudge": LMAsJudgeMetric,
        "lm_as_judge": LMAsJudgeMetric,
        "ProgramAsJudge": ProgramAsJudgeMetric,
        "program_as_judge": ProgramAsJudgeMetric,
    },
)

#: Class names and snake_case names of the built-in metrics.
ALL_OBJECTS: dict[str, type[Metric]] = _FAMILY.objects


def serialize(metric: Metric) -> dict[str, Any]:
    """The metric as ``{"module", "class_name", "registered_name", "config"}``."""
    return _FAMILY.serialize(metric)


def deserialize(config: dict[str, Any]) -> Metric:
    """Rebuild a metric from `serialize`'s output (a serialised function is wrapped).

    Raises:
        SerializationError: when the config names nothing known.
        ValueError: when it rebuilds something that is not a metric.
    """
    return _FAMILY.deserialize(config)


def get(identifier: Any) -> Metric:
    """Find a metric by name, config, instance or function.

    Args:
        identifier: a built-in name in any spelling (``"f1_score"``,
            ``"F1Score"``), the registered name of a custom function or `Metric`
            subclass (``"Custom>my_metric"``),
            a dict from `serialize`, a `Metric` instance (returned as is), a
            `Metric` subclass (instantiated with no arguments) or a function
            ``(y_true, y_pred) -> float`` (wrapped in `MeanMetricWrapper`).

    Raises:
        ValueError: for an unknown name or an unsupported identifier.

    Example:
        ```python
        metrics.get("f1_score")
        ```
    """
    return _FAMILY.get(identifier)
