"""The source a new code reward or metric starts from, one per kind."""

from __future__ import annotations

REWARD = '''\
"""A reward: 1.0 when the answer is right, with feedback the optimizer reads when not."""

import re


def normalise(text):
    return re.sub(r"\\s+", " ", str(text)).strip().lower()


def reward(y_true, y_pred):
    # y_true and y_pred are dicts of the output fields (y_true is None without a target).
    if y_true is None or y_pred is None:
        return 0.0, "no answer to compare"
    expected, got = normalise(y_true.get("answer")), normalise(y_pred.get("answer"))
    if got == expected:
        return 1.0
    return 0.0, f"expected {expected!r}, got {got!r}"
'''

METRIC = '''\
"""A metric: any finite number per row; the run logs its mean."""


def metric(y_true, y_pred):
    # Here: how many words the answer has.
    if y_pred is None:
        return 0.0
    return float(len(str(y_pred.get("answer", "")).split()))
'''


def template(kind: str) -> str:
    """The starting source of a ``reward`` or a ``metric``."""
    return METRIC if kind == "metric" else REWARD
