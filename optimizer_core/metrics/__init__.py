"""Metrics: figures monitored during training and evaluation, not optimised.

Look one up with `get`: ``get("f1_score")``, ``get("F1Score")``, a dict from
`serialize`, an instance (returned as is), or a plain function (wrapped in
`MeanMetricWrapper`).
"""

from __future__ import annotations

import inspect
from typing import Any

from optimizer_core.metrics.metric import Metric
from optimizer_core.metrics.metrics_wrappers import MeanMetricWrapper
from optimizer_core.metrics.token_overlap import F1Score, Precision, Recall
from optimizer_core.rewards.reward import snake_case
from optimizer_core.saving.object_registry import (
    deserialize_object,
    get_registered_object,
    serialize_object,
)

__all__ = [
    "F1Score",
    "MeanMetricWrapper",
    "Metric",
    "Precision",
    "Recall",
    "deserialize",
    "get",
    "serialize",
]

_BUILT_INS: tuple[type[Metric], ...] = (F1Score, MeanMetricWrapper, Precision, Recall)

#: Class names and snake_case names of the built-in metrics.
ALL_OBJECTS: dict[str, type[Metric]] = {
    **{cls.__name__: cls for cls in _BUILT_INS},
    **{snake_case(cls.__name__): cls for cls in _BUILT_INS},
}


def serialize(metric: Metric) -> dict[str, Any]:
    """The metric as ``{"module", "class_name", "registered_name", "config"}``."""
    return serialize_object(metric)


def deserialize(config: dict[str, Any]) -> Metric:
    """Rebuild a metric from `serialize`'s output (a serialised function is wrapped).

    Raises:
        SerializationError: when the config names nothing known.
        ValueError: when it rebuilds something that is not a metric.
    """
    return _as_metric(deserialize_object(config, module_objects=dict(ALL_OBJECTS)), config)


def get(identifier: Any) -> Metric:
    """Find a metric by name, config, instance or function.

    Args:
        identifier: a built-in name (``"f1_score"`` or ``"F1Score"``), the
            registered name of a custom function or class (``"Custom>my_metric"``),
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
    if isinstance(identifier, Metric):
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
                f"unknown metric {identifier!r}; built-ins are {known}, or pass the "
                "registered name of a custom function"
            ) from None
        return _as_metric(found, identifier)
    return _as_metric(identifier, identifier)


def _as_metric(found: Any, identifier: Any) -> Metric:
    if isinstance(found, Metric):
        return found
    if inspect.isclass(found):
        if issubclass(found, Metric):
            return found()
    elif callable(found):
        return MeanMetricWrapper(found)
    raise ValueError(f"cannot turn {identifier!r} into a metric")
