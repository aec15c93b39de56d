"""ExactMatch: 1.0 when the masked prediction equals the masked ground truth."""

from __future__ import annotations

from typing import Any

from optimizer_core.datamodels import JsonDict
from optimizer_core.rewards.reward import Reward

__all__ = ["ExactMatch"]


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


class ExactMatch(Reward):
    """1.0 when the masked JSONs are equal, else 0.0.

    Values are compared as JSON: strings exactly (case and spaces count),
    numbers by value (``4 == 4.0``), booleans only with booleans, and key order
    does not matter. A missing ground truth (``None``) never matches.

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

    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> float:
        if y_true is None or y_pred is None:
            return 0.0
        return 1.0 if _json_equal(y_true, y_pred) else 0.0
