"""Dominated Novelty Search: the competition OMEGA runs on each population at epoch end.

Each candidate is compared with the candidates that are strictly fitter than
it. A candidate nothing beats is not dominated: it scores 1.0 and always
survives. Any other candidate scores the mean distance to its ``k`` nearest
fitter neighbours: far from every better solution means novel (worth
keeping), close to a better one means redundant. Candidates scoring at least
the median survive the cut.

These functions are pure: the caller computes distances (embeddings, a user
function) and ranks the survivors.

References:
    Bahlous-Boldi et al., "Dominated Novelty Search: Rethinking Local
    Competition in Quality-Diversity" (2025), https://arxiv.org/abs/2502.00593
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

__all__ = [
    "NOT_DOMINATED_SCORE",
    "cosine_distance",
    "dominated_novelty_scores",
    "fitter_pairs",
    "survivors",
]

NOT_DOMINATED_SCORE = 1.0
"""The score of a candidate that no other candidate beats."""


def fitter_pairs(fitness: Sequence[float]) -> list[tuple[int, int]]:
    """The ``(i, j)`` index pairs, ``i < j``, where one candidate is strictly fitter.

    These are the only distances the competition needs, each computed once.
    """
    return [
        (i, j)
        for i in range(len(fitness))
        for j in range(i + 1, len(fitness))
        if fitness[i] != fitness[j]
    ]


def dominated_novelty_scores(
    fitness: Sequence[float], distance: Callable[[int, int], float], k: int
) -> list[float]:
    """Each candidate's competition score.

    Args:
        fitness: one value per candidate (higher is better; use ``-inf`` for unscored).
        distance: ``distance(i, j)`` between candidates ``i`` and ``j``.
        k: how many nearest fitter neighbours are averaged (>= 1).

    Returns:
        `NOT_DOMINATED_SCORE` for a candidate with no strictly fitter one, else the
        mean distance to its ``min(k, number fitter)`` nearest fitter candidates.
    """
    if k < 1:
        raise ValueError(f"`k` must be >= 1, got {k}")
    scores: list[float] = []
    for i, own in enumerate(fitness):
        fitter = [j for j, other in enumerate(fitness) if other > own]
        if not fitter:
            scores.append(NOT_DOMINATED_SCORE)
            continue
        nearest = sorted(distance(i, j) for j in fitter)[:k]
        scores.append(sum(nearest) / len(nearest))
    return scores


def survivors(fitness: Sequence[float], scores: Sequence[float]) -> list[int]:
    """Indices of the candidates that pass the median cut, in input order.

    A candidate survives when its score is at least the median score, or when
    no candidate is strictly fitter (so the best candidates are never lost,
    even when a custom distance makes novelty scores larger than 1.0).
    """
    if len(fitness) != len(scores):
        raise ValueError(f"got {len(fitness)} fitness values but {len(scores)} scores")
    if not scores:
        return []
    median = statistics.median(scores)
    top = max(fitness)
    return [i for i, score in enumerate(scores) if score >= median or fitness[i] >= top]


def cosine_distance(u: Sequence[float], v: Sequence[float]) -> float:
    """``1 - cos(u, v)``, in [0, 2]; a zero vector is at distance 1.0 from everything."""
    if len(u) != len(v):
        raise ValueError(f"vectors have different lengths: {len(u)} and {len(v)}")
    dot = sum(a * b for a, b in zip(u, v, strict=True))
    norm = math.sqrt(sum(a * a for a in u)) * math.sqrt(sum(b * b for b in v))
    if norm == 0.0:
        return 1.0
    return 1.0 - max(-1.0, min(1.0, dot / norm))
