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

Combining samples (`average`):

- ``"samples"`` (the default): the mean of the samples' scores, each sample
  scored as above (scikit-learn's name for it). It is what the reward's figure
  is too, a mean over rows, so the two read alike.
- the others count tokens per field over every sample, as the reference library
  and scikit-learn do: per ground-truth leaf path, the overlap (true positives),
  the predicted tokens beyond it (false positives) and the gold tokens missed
  (false negatives; a leaf missing from the prediction, or a ``None``
  prediction, misses all of its gold tokens). A field's score comes from its
  summed counts by the rule of step 3 (no token on either side: 1.0).
  ``"micro"`` sums the counts over the fields first; ``"macro"`` is the mean of
  the fields' scores; ``"weighted"`` their mean weighted by support, each
  field's number of gold tokens (the plain mean when no field has any);
  ``None`` gives each field's score apart, as ``{path: score}`` (logged as
  ``<name>_<path>``).

Before any sample, and for the field averages before any field, the result is 0.0
(``{}`` for ``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from optimizer_core.metrics.metric import Metric
from optimizer_core.rewards.reward import as_json
from optimizer_core.saving.params import Param
from optimizer_core.utils.json_utils import flatten_json, leaf_to_text, tokenize
from optimizer_core.utils.token_scores import overlap as _overlap
from optimizer_core.utils.token_scores import scores_from_counts as _scores_from_counts
from optimizer_core.utils.token_scores import token_scores

__all__ = [
    "AVERAGES",
    "F1Score",
    "Precision",
    "Recall",
    "token_f1_score",
    "token_precision",
    "token_recall",
    "token_scores",
]

_Scores = tuple[float, float, float]
Average = Literal["samples", "micro", "macro", "weighted"]

#: The values of `average` besides None.
AVERAGES: tuple[str, ...] = ("samples", "micro", "macro", "weighted")


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
    """Per-sample token precision averaged over the ground truth's leaves (module docstring)."""
    return _mean_leaf_score(y_true, y_pred, lambda scores: scores[0])


def token_recall(y_true: Any, y_pred: Any) -> float:
    """Per-sample token recall averaged over the ground truth's leaves (module docstring)."""
    return _mean_leaf_score(y_true, y_pred, lambda scores: scores[1])


def token_f1_score(y_true: Any, y_pred: Any) -> float:
    """Per-sample token F1 averaged over the ground truth's leaves (module docstring)."""
    return _mean_leaf_score(y_true, y_pred, lambda scores: scores[2])


@dataclass
class _FieldCounts:
    """One field's token counts over the samples: overlap, predicted tokens, gold tokens."""

    overlap: int = 0
    predicted: int = 0
    gold: int = 0


class _TokenOverlapMetric(Metric):
    """The state and averages F1Score, Precision and Recall share; each picks one score."""

    #: Which of (precision, recall, f1) the metric reports.
    _pick: ClassVar[int]

    user_params: ClassVar[tuple[Param, ...]] = (
        Param(
            "average",
            "how rows and fields combine: samples (the mean of each row's score), micro "
            "(tokens counted over every field), macro (the mean of the fields' scores), "
            "weighted (by each field's gold tokens); none: one figure per field",
            choices=AVERAGES,
        ),
    )

    def __init__(
        self,
        *,
        average: Average | None = "samples",
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        if average is not None and average not in AVERAGES:
            raise ValueError(f"`average` must be one of {list(AVERAGES)} or None, got {average!r}")
        super().__init__(
            name=name,
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )
        self.average: Average | None = average
        self.total = 0.0
        self.count = 0
        self.fields: dict[str, _FieldCounts] = {}

    def _picked(self, scores: _Scores) -> float:
        return scores[type(self)._pick]

    async def call(self, y_true: Any, y_pred: Any) -> float:
        return _mean_leaf_score(y_true, y_pred, self._picked)

    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        self.total += await self.score(y_true, y_pred)
        self.count += 1
        gold = flatten_json(self.prepare(y_true) or {})
        predicted = {} if y_pred is None else flatten_json(self.prepare(y_pred) or {})
        for path, gold_value in gold.items():
            gold_tokens = tokenize(leaf_to_text(gold_value))
            predicted_tokens = tokenize(leaf_to_text(predicted[path])) if path in predicted else []
            counts = self.fields.setdefault(path, _FieldCounts())
            counts.overlap += _overlap(gold_tokens, predicted_tokens)
            counts.predicted += len(predicted_tokens)
            counts.gold += len(gold_tokens)

    def field_results(self) -> dict[str, float]:
        """Each field's score from its token counts so far (what ``average=None`` gives)."""
        return {
            path: self._picked(_scores_from_counts(c.overlap, c.predicted, c.gold))
            for path, c in self.fields.items()
        }

    def result(self) -> float | dict[str, float]:
        if self.average is None:
            return self.field_results()
        if self.average == "samples":
            return self.total / self.count if self.count else 0.0
        if not self.fields:
            return 0.0
        counts = self.fields.values()
        if self.average == "micro":
            return self._picked(
                _scores_from_counts(
                    sum(c.overlap for c in counts),
                    sum(c.predicted for c in counts),
                    sum(c.gold for c in counts),
                )
            )
        scores = self.field_results()
        support = {path: c.gold for path, c in self.fields.items()}
        total_support = sum(support.values())
        if self.average == "weighted" and total_support:
            return sum(scores[path] * support[path] for path in scores) / total_support
        return sum(scores.values()) / len(scores)

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0
        self.fields = {}

    def get_config(self) -> dict[str, Any]:
        return {"average": self.average, **super().get_config()}


class F1Score(_TokenOverlapMetric):
    """Token-level F1 between prediction and ground truth, field by field.

    See the module docstring for the exact rule and the averages.

    Args:
        average: ``"samples"`` (default: the mean of the rows' scores), ``"micro"``,
            ``"macro"``, ``"weighted"`` (tokens counted per field over the rows, then
            combined over the fields) or None (each field apart, ``{path: score}``).
        name: the name it is logged under (default ``"f1_score"``).
        in_mask: score only these fields (default None: all of them).
        out_mask: leave these fields out (default None).
        in_mask_pattern: also score the fields whose name matches this regex (default None).
        out_mask_pattern: also leave out the fields whose name matches it (default None).

    Example:
        ```python
        metric = F1Score(in_mask=["answer"])
        await metric(Answer(answer="Paris is France"), Answer(answer="Paris Paris is France"))
        metric.result()  # 0.8
        ```
    """

    _pick = 2


class Precision(_TokenOverlapMetric):
    """Token-level precision (overlap / predicted tokens), field by field.

    See the module docstring for the exact rule and the averages.

    Args:
        average: ``"samples"`` (default), ``"micro"``, ``"macro"``, ``"weighted"`` or
            None, as for `F1Score`.
        name: the name it is logged under (default ``"precision"``).
        in_mask: score only these fields (default None: all of them).
        out_mask: leave these fields out (default None).
        in_mask_pattern: also score the fields whose name matches this regex (default None).
        out_mask_pattern: also leave out the fields whose name matches it (default None).

    Example:
        ```python
        metric = Precision(in_mask=["answer"])
        await metric(Answer(answer="the cat sat"), Answer(answer="cat sat down"))  # 0.667
        ```
    """

    _pick = 0


class Recall(_TokenOverlapMetric):
    """Token-level recall (overlap / gold tokens), field by field.

    See the module docstring for the exact rule and the averages.

    Args:
        average: ``"samples"`` (default), ``"micro"``, ``"macro"``, ``"weighted"`` or
            None, as for `F1Score`.
        name: the name it is logged under (default ``"recall"``).
        in_mask: score only these fields (default None: all of them).
        out_mask: leave these fields out (default None).
        in_mask_pattern: also score the fields whose name matches this regex (default None).
        out_mask_pattern: also leave out the fields whose name matches it (default None).

    Example:
        ```python
        metric = Recall(in_mask=["answer"], average="micro")
        await metric(Answer(answer="the cat sat"), Answer(answer="cat sat down"))  # 1.0
        ```
    """

    _pick = 1
