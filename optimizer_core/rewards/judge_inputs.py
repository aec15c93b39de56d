"""What a judge sees: the gold fields, prefixed ``gold_``, beside the predicted fields."""

from __future__ import annotations

from optimizer_core.datamodels import JsonDict

__all__ = ["GOLD_PREFIX", "judge_inputs"]

GOLD_PREFIX = "gold_"


def judge_inputs(y_true: JsonDict | None, y_pred: JsonDict | None) -> JsonDict:
    """Merge the ground truth and the prediction into one dict for a judge.

    Top-level gold keys get the ``gold_`` prefix (nested keys are left alone);
    the predicted keys follow unchanged.

    Args:
        y_true: the (masked) ground truth, or None.
        y_pred: the (masked) prediction, or None.

    Example:
        ```python
        judge_inputs({"answer": "4"}, {"answer": "5"})
        # {"gold_answer": "4", "answer": "5"}
        ```
    """
    merged: JsonDict = {f"{GOLD_PREFIX}{key}": value for key, value in (y_true or {}).items()}
    merged.update(y_pred or {})
    return merged
