"""Token-overlap precision, recall and F1 of two texts: what F1Score and the field rules share.

The texts are tokenised by `optimizer_core.utils.json_utils.tokenize` (lowercased,
punctuation and the words a/an/the/of/is dropped, split on whitespace); the
overlap is the size of the multiset intersection of the two token lists. See
`optimizer_core.metrics.token_overlap` for the rule in full.
"""

from __future__ import annotations

from collections import Counter

from optimizer_core.utils.json_utils import tokenize

__all__ = ["overlap", "scores_from_counts", "token_scores"]

Scores = tuple[float, float, float]


def scores_from_counts(common: int, predicted: int, gold: int) -> Scores:
    """(precision, recall, f1) from an overlap and the two token counts."""
    if not gold and not predicted:
        return 1.0, 1.0, 1.0
    if common == 0:
        return 0.0, 0.0, 0.0
    precision = common / predicted
    recall = common / gold
    return precision, recall, 2 * precision * recall / (precision + recall)


def overlap(gold: list[str], predicted: list[str]) -> int:
    """The size of the multiset intersection of two token lists."""
    return sum((Counter(gold) & Counter(predicted)).values())


def token_scores(gold_text: str, predicted_text: str) -> Scores:
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
    return scores_from_counts(overlap(gold, predicted), len(predicted), len(gold))
