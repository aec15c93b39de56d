"""Utilities: plots of training histories and evaluations, and JSON helpers.

`json_utils` (flattening, field masks, text normalisation) is exposed as a
submodule: ``from optimizer_core.utils import json_utils``.
"""

from optimizer_core.utils import json_utils
from optimizer_core.utils.plotting import (
    plot_history,
    plot_metrics,
    plot_metrics_comparison_with_mean_and_std,
    plot_metrics_with_mean_and_std,
)

__all__ = [
    "json_utils",
    "plot_history",
    "plot_metrics",
    "plot_metrics_comparison_with_mean_and_std",
    "plot_metrics_with_mean_and_std",
]
