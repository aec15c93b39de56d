"""Dominated Novelty Search scores and the median cut, on hand-computable populations."""

from __future__ import annotations

import math

import pytest

from optimizer_core.optimizers import dns

# Five candidates on a line: fitness and position; distance = |x_i - x_j|.
FITNESS = [1.0, 0.8, 0.8, 0.5, 0.2]
POSITION = [0.0, 1.0, 5.0, 2.0, 10.0]


def line(i: int, j: int) -> float:
    return abs(POSITION[i] - POSITION[j])


def test_scores_are_mean_distances_to_the_k_nearest_fitter_candidates() -> None:
    scores = dns.dominated_novelty_scores(FITNESS, line, k=2)
    # 0: nothing fitter -> 1.0. 1 and 2: only candidate 0 is strictly fitter (ties do
    # not count). 3: fitter 0, 1, 2 at 2, 1, 3 -> mean of 1 and 2. 4: fitter at 10, 9,
    # 5, 8 -> mean of 5 and 8.
    assert scores == [1.0, 1.0, 5.0, 1.5, 6.5]
    # k=1 keeps only the nearest fitter neighbour.
    assert dns.dominated_novelty_scores(FITNESS, line, k=1) == [1.0, 1.0, 5.0, 1.0, 5.0]


def test_median_cut_drops_candidates_close_to_a_better_one() -> None:
    scores = dns.dominated_novelty_scores(FITNESS, line, k=2)
    # median of [1, 1, 5, 1.5, 6.5] is 1.5: candidate 1 (near the best) is redundant.
    assert dns.survivors(FITNESS, scores) == [0, 2, 3, 4]


def test_candidates_nothing_beats_survive_even_below_the_median() -> None:
    # With a custom distance, novelty scores can exceed the 1.0 given to the best.
    fitness = [1.0, 1.0, 0.5, 0.4]
    scores = [1.0, 1.0, 5.0, 7.0]
    assert dns.survivors(fitness, scores) == [0, 1, 2, 3]
    assert dns.survivors([1.0, 0.5, 0.4], [1.0, 5.0, 7.0]) == [0, 1, 2]
    assert dns.survivors([0.9, 0.5, 0.4, 0.3], [1.0, 0.1, 7.0, 6.0]) == [0, 2, 3]


def test_only_pairs_with_a_strictly_fitter_member_are_measured() -> None:
    assert dns.fitter_pairs([1.0, 0.5, 0.5]) == [(0, 1), (0, 2)]
    assert dns.fitter_pairs([0.3, 0.3]) == []


def test_unscored_candidates_rank_below_every_scored_one() -> None:
    scores = dns.dominated_novelty_scores([-math.inf, 0.0], lambda i, j: 0.25, k=3)
    assert scores == [0.25, 1.0]


def test_cosine_distance() -> None:
    assert dns.cosine_distance([1.0, 0.0], [2.0, 0.0]) == pytest.approx(0.0)
    assert dns.cosine_distance([1.0, 0.0], [0.0, 3.0]) == pytest.approx(1.0)
    assert dns.cosine_distance([1.0, 0.0], [-1.0, 0.0]) == pytest.approx(2.0)
    assert dns.cosine_distance([0.0, 0.0], [1.0, 1.0]) == 1.0
    with pytest.raises(ValueError, match="different lengths"):
        dns.cosine_distance([1.0], [1.0, 2.0])


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="`k`"):
        dns.dominated_novelty_scores([1.0], line, k=0)
