"""F1Score, Precision and Recall: token overlap between prediction and ground truth.

Scoring one sample:

1. both samples are masked and flattened (``a.b``, ``a[0]``); numbers and
   booleans are compared as their string form (``4`` -> ``"4"``);
2. each leaf's text is lowercased, stripped of punctuation and of the words
   a/an/the/of/is, and split on whitespace (`optimizer_core.utils.json_utils.tokenize`);
3. for each leaf of the **ground truth**, the overlap is the size of the multiset
   intersection of its gold tokens and the predicted tokens at the same path:
   precision = overlap / len(predicted tokens), recall = overlap / len(gold tokens),
   f1 = 2PR / (P + R), and 0.0 when the overlap is 0;
4. the sample's score is the mean over the ground truth's leaves.

Edge cases: a leaf that is empty on both sides (after normalisation) scores 1.0
for all three; empty on one side only, or missing from the prediction, 0.0.
Predicted leaves absent from the ground truth are ignored. A ground truth with
no leaves scores 1.0 if the prediction has none either, else 0.0. A ``None``
prediction scores 0.0.

Example: gold ``"Paris is France"`` against prediction ``"Paris Paris is France"``
has tokens [paris, france] and [paris, paris, france], overlap 2, P 2/3, R 1, F1 0.8.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from optimizer_core.metrics.metrics_wrappers import MeanMetricWrapper
from optimizer_core.rewards.reward import as_json
from optimizer_core.saving.naming import snake_case
from optimizer_core.utils.json_utils import flatten_json, leaf_to_text, tokenize

__all__ = [
    "F1Score",
    "Precision",
    "Recall",
    "token_f1_score",
    "token_precision",
    "token_recall",
    "token_scores",
]

_Scores = tuple[float, float, float]


def token_scores(gold_text: str, predicted_text: str) -> _Scores:
    """(precision, recall, f1) of the predicted text's tokens against the gold text's.

    Args:
        gold_text: the ground truth text.
        predicted_text: the predicted text.

    Example:
        ```python
        token_scores("the cat sat", "cat sat down")  # (0.666..., 1.0, 0.8)
        ```
    """
    gold = tokenize(gold_text)
    predicted = tokenize(predicted_text)
    if not gold and not predicted:
        return 1.0, 1.0, 1.0
    overlap = sum((Counter(gold) & Counter(predicted)).values())
    if overlap == 0:
        return 0.0, 0.0, 0.0
    precision = overlap / len(predicted)
    recall = overlap / len(gold)
    return precision, recall, 2 * precision * recall / (precision + recall)


def _mean_leaf_score(y_true: Any, y_pred: Any, pick: Callable[[_Scores], float]) -> float:
    if y_pred is None:
        return 0.0
    gold = flatten_json(as_json(y_true) or {})
    predicted = flatten_json(as_json(y_pred) or {})
    if not gold:
        return 1.0 if not predicted else 0.0
    total = 0.0
    for path, gold_value in gold.items():
        if path in predicted:
            total += pick(token_scores(leaf_to_text(gold_value), leaf_to_text(predicted[path])))
    return total / len(gold)


def token_precision(y_true: Any, y_pred: Any) -> float:
    """Per-sample token precision, averaged over the ground truth's leaves (module docstring)."""
    return _mean_leaf_score(y_true, y_pred, lambda scores: scores[0])


def token_recall(y_true: Any, y_pred: Any) -> float:
    """Per-sample token recall, averaged over the ground truth's leaves (module docstring)."""
    return _mean_leaf_score(y_true, y_pred, lambda scores: scores[1])


def token_f1_score(y_true: Any, y_pred: Any) -> float:
    """Per-sample token F1, averaged over the ground truth's leaves (module docstring)."""
    return _mean_leaf_score(y_true, y_pred, lambda scores: scores[2])


class _TokenOverlapMetric(MeanMetricWrapper):
    """A MeanMetricWrapper over one of the token functions; saves only name and masks."""

    _score_fn: Callable[[Any, Any], float]

    def __init__(
        self,
        *,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
    ) -> None:
        super().__init__(
            type(self)._score_fn,
            name=name or snake_case(type(self).__name__),
            in_mask=in_mask,
            out_mask=out_mask,
        )

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "in_mask": self.in_mask, "out_mask": self.out_mask}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> _TokenOverlapMetric:
        return cls(**config)


class F1Score(_TokenOverlapMetric):
    """Mean token-level F1 between prediction and ground truth, field by field.

    See the module docstring for the exact rule.

    Args:
        name: the name it is logged under (default ``"f1_score"``).
        in_mask: score only these fields (default None: all of them).
        out_mask: leave these fields out (default None).

    Example:
        ```python
        metric = F1Score(in_mask=["answer"])
        await metric.update_state(Answer(answer="Paris is France"),
                                  Answer(answer="Paris Paris is France"))
        metric.result()  # 0.8
        ```
    """

    _score_fn = staticmethod(token_f1_score)


class Precision(_TokenOverlapMetric):
    """Mean token-level precision (overlap / predicted tokens), field by field.

    See the module docstring for the exact rule.

    Args:
        name: the name it is logged under (default ``"precision"``).
        in_mask: score only these fields (default None: all of them).
        out_mask: leave these fields out (default None).

    Example:
        ```python
        metric = Precision(in_mask=["answer"])
        await metric(Answer(answer="the cat sat"), Answer(answer="cat sat down"))  # 0.667
        ```
    """

    _score_fn = staticmethod(token_precision)


class Recall(_TokenOverlapMetric):
    """Mean token-level recall (overlap / gold tokens), field by field.

    See the module docstring for the exact rule.

    Args:
        name: the name it is logged under (default ``"recall"``).
        in_mask: score only these fields (default None: all of them).
        out_mask: leave these fields out (default None).

    Example:
        ```python
        metric = Recall(in_mask=["answer"])
        await metric(Answer(answer="the cat sat"), Answer(answer="cat sat down"))  # 1.0
        ```
    """

    _score_fn = staticmethod(token_recall)
