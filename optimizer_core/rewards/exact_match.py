"""ExactMatch: 1.0 when the masked prediction equals the masked ground truth."""

from __future__ import annotations

import json
from typing import Any

from optimizer_core.datamodels import JsonDict
from optimizer_core.rewards.reward import Reward, Scored

__all__ = ["ExactMatch", "differences"]

#: The longest value shown in a difference (longer ones are cut, with an ellipsis).
SHOWN_VALUE_CHARS = 60
#: The most differing fields named in one feedback text (then "and N more").
SHOWN_FIELDS = 5


def _json_equal(left: Any, right: Any) -> bool:
    """JSON equality that, unlike Python's ``==``, keeps ``true`` apart from ``1``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if isinstance(left, dict | list | tuple) or isinstance(right, dict | list | tuple):
        return False
    return bool(left == right)


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > SHOWN_VALUE_CHARS:
        text = text[: SHOWN_VALUE_CHARS - 1] + "…"
    return text


def differences(y_true: JsonDict, y_pred: JsonDict) -> str:
    """The fields that differ, ``answer: expected 'Paris', got 'Lyon'``, values shortened.

    A field of the ground truth the prediction lacks reads ``got nothing``; a field
    only the prediction has, ``not expected``.
    """
    parts: list[str] = []
    for key in [*y_true, *(k for k in y_pred if k not in y_true)]:
        if key not in y_pred:
            parts.append(f"{key}: expected {_shown(y_true[key])}, got nothing")
        elif key not in y_true:
            parts.append(f"{key}: {_shown(y_pred[key])} not expected")
        elif not _json_equal(y_true[key], y_pred[key]):
            parts.append(f"{key}: expected {_shown(y_true[key])}, got {_shown(y_pred[key])}")
    if len(parts) > SHOWN_FIELDS:
        parts = [*parts[:SHOWN_FIELDS], f"and {len(parts) - SHOWN_FIELDS} more"]
    return "; ".join(parts)


class ExactMatch(Reward):
    """1.0 when the masked JSONs are equal, else 0.0.

    Values are compared as JSON: strings exactly (case and spaces count),
    numbers by value (``4 == 4.0``), booleans only with booleans, and key order
    does not matter. A missing ground truth (``None``) never matches. A mismatch
    comes with feedback naming the fields that differ (`differences`).

    Args:
        name: the name it is logged under (default ``"exact_match"``).
        in_mask: compare only these fields (default None: all of them).
        out_mask: leave these fields out of the comparison (default None).
        in_mask_pattern: a regex; the fields whose name matches are kept too (default None).
        out_mask_pattern: a regex; the fields whose name matches are dropped too (default None).

    Example:
        ```python
        reward = ExactMatch(in_mask=["answer"])
        await reward(Answer(answer="4"), Answer(answer="4"))  # 1.0
        ```
    """

    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> float | Scored:
        if y_true is None or y_pred is None:
            return 0.0
        if _json_equal(y_true, y_pred):
            return 1.0
        return Scored(0.0, differences(y_true, y_pred) or None)
