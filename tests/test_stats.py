"""Comparing two evaluations of the same rows (optimizer_core.stats)."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from optimizer_core import stats
from optimizer_core.stats import (
    PairedComparison,
    bootstrap_interval,
    compare_paired,
    minimum_detectable_difference,
    paired_difference,
    rows_needed,
    sign_flip_p_value,
)

# z(0.975) + z(0.8) = 1.959964 + 0.841621
Z_SUM = 2.801585

# --- hand-computed cases ---------------------------------------------------------------------


def test_three_rows_that_all_improve_by_one_of_four() -> None:
    # d = after - before = [1, 1, 1, 0]; mean 0.75.
    # Exact sign flips over the 3 non-zero d: 2**3 = 8 patterns, |sum| = 3 only for
    # +++ and ---, so p = 2/8 = 0.25.
    # sd(d, ddof=1): deviations .25, .25, .25, -.75 -> squares sum .75, /3 = .25, sd 0.5;
    # MDE = 2.801585 * 0.5 / sqrt(4) = 0.700396.
    # Rows for 0.05: 4 * (0.700396 / 0.05)**2 = 784.9 -> 785.
    result = compare_paired([0, 0, 0, 1], [1, 1, 1, 1])

    assert result.n == 4
    assert result.mean_before == 0.25
    assert result.mean_after == 1.0
    assert result.difference == 0.75
    assert result.p_value == 0.25
    assert result.min_detectable_difference == pytest.approx(Z_SUM * 0.5 / 2, abs=1e-6)
    assert result.verdict == "no detectable change"
    assert result.rows_needed(0.05) == 785
    assert result.describe().endswith("you need about 785 rows to see a gain of 0.05.")


def test_exact_p_value_with_unequal_magnitudes_ignores_zero_differences() -> None:
    # d = [1, .5, .25, -.25, 0]: observed sum 1.5; the zero is dropped (flipping it changes
    # nothing), leaving 2**4 = 16 patterns. ±1±.5 is in {1.5, .5, -.5, -1.5}; ±.25±.25 is
    # .5 once, 0 twice, -.5 once. |sum| >= 1.5: 1.5 + {.5, 0, 0} (3 patterns) and the
    # mirror -1.5 + {-.5, 0, 0} (3) -> p = 6/16 = 0.375.
    before = [0.0, 0.25, 0.5, 0.75, 0.5]
    after = [1.0, 0.75, 0.75, 0.5, 0.5]

    assert paired_difference(before, after) == pytest.approx(1.5 / 5)
    assert sign_flip_p_value(before, after) == 0.375
    # The same differences without the tie give the same p-value.
    assert sign_flip_p_value(before[:4], after[:4]) == 0.375


def test_exact_enumeration_matches_brute_force() -> None:
    rng = np.random.default_rng(7)
    before, after = rng.random(11), rng.random(11)
    d = after - before
    observed = abs(d.sum())
    patterns = list(itertools.product((-1.0, 1.0), repeat=d.size))
    extreme = sum(abs(np.dot(signs, d)) >= observed - 1e-12 for signs in patterns)

    assert sign_flip_p_value(before, after) == extreme / len(patterns)


def test_two_rows_both_improving_are_not_significant_though_the_interval_excludes_zero() -> None:
    # d = [1, 1]: every bootstrap resample has mean 1, so the interval is [1, 1]; the exact
    # test has 4 patterns, 2 of which reach |sum| = 2: p = 0.5. The p-value decides.
    result = compare_paired([0, 0], [1, 1])

    assert (result.ci_low, result.ci_high) == (1.0, 1.0)
    assert result.p_value == 0.5
    assert result.verdict == "no detectable change"


def test_ten_of_forty_rows_improving_is_a_significant_gain_and_the_mirror_a_loss() -> None:
    # d is 1 on 10 rows, 0 elsewhere: exact p = 2 / 2**10 = 0.001953125.
    before, after = [0, 1, 0, 1] * 10, [1, 1, 0, 1] * 10
    gain = compare_paired(before, after)
    loss = compare_paired(after, before)

    assert gain.p_value == loss.p_value == 2 / 2**10
    assert gain.difference == 0.25
    assert gain.ci_low > 0 and gain.verdict == "significant gain"
    assert loss.ci_high < 0 and loss.verdict == "significant loss"
    assert gain.describe() == (
        "significant gain at n=40: mean reward 0.500 -> 0.750 "
        f"(+0.250, 95% CI [{gain.ci_low:+.3f}, {gain.ci_high:+.3f}], p = 0.002)."
    )


def test_identical_evaluations_use_the_fallback_sd() -> None:
    # No non-zero difference: p = 1. The observed sd is 0, so the MDE uses sd 0.5:
    # 2.801585 * 0.5 / sqrt(40) = 0.221485; 40 * (0.221485 / 0.05)**2 = 784.9 -> 785 rows.
    result = compare_paired([0.5] * 40, [0.5] * 40)

    assert result.p_value == 1.0
    assert (result.ci_low, result.ci_high) == (0.0, 0.0)
    assert result.min_detectable_difference == pytest.approx(Z_SUM * 0.5 / math.sqrt(40), abs=1e-6)
    assert result.verdict == "no detectable change"
    assert "no detectable change at n=40" in result.describe()
    assert "you need about 785 rows to see a gain of 0.05" in result.describe()


def test_enough_rows_say_a_real_change_is_probably_smaller_than_the_target() -> None:
    result = compare_paired([0.5] * 40, [0.5] * 39 + [0.6])  # sd tiny: MDE << 0.05

    assert result.rows_needed(0.05) <= 40
    assert "detect a gain of 0.05 at least 80% of the time" in result.describe()


def test_mde_and_rows_needed_by_hand_and_as_inverses() -> None:
    # 2.801585 * 0.5 / sqrt(40) = 0.221485; (2.801585 * 0.5 / 0.05)**2 = 784.9 -> 785.
    assert minimum_detectable_difference(40, 0.5) == pytest.approx(0.221485, abs=1e-6)
    assert rows_needed(0.05, 0.5) == 785
    assert rows_needed(-0.05, 0.5) == 785
    for n in (2, 40, 106, 1000):
        assert rows_needed(minimum_detectable_difference(n, 0.3), 0.3) == n
    # alpha and power move it the expected way.
    assert minimum_detectable_difference(40, 0.5, alpha=0.01) > 0.221485
    assert minimum_detectable_difference(40, 0.5, power=0.9) > 0.221485


def test_none_rewards_are_failed_rows_scored_zero() -> None:
    assert compare_paired([None, 1, 0], [1, None, 1]) == compare_paired([0, 1, 0], [1, 0, 1])


# --- determinism ----------------------------------------------------------------------------


def test_same_seed_same_result_and_compare_matches_the_parts() -> None:
    rng = np.random.default_rng(3)
    before, after = rng.random(60), rng.random(60)  # 60 non-zero differences: Monte Carlo p

    first = compare_paired(before, after, seed=11)
    assert compare_paired(before, after, seed=11) == first
    assert (first.ci_low, first.ci_high) == bootstrap_interval(before, after, seed=11)
    assert first.p_value == sign_flip_p_value(before, after, seed=11)
    assert compare_paired(before, after, seed=12).ci_low != first.ci_low
    assert compare_paired(list(before), tuple(after), seed=11) == first


def test_monte_carlo_p_value_has_the_plus_one_floor() -> None:
    # 40 rows all +1: no random pattern of 999 reaches |sum| = 40 (chance 2**-39 each),
    # so p = (1 + 0) / (1 + 999).
    assert sign_flip_p_value([0] * 40, [1] * 40, resamples=999) == 1 / 1000


def test_monte_carlo_agrees_with_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    before, after = rng.random(14), rng.random(14)
    exact = sign_flip_p_value(before, after)
    monkeypatch.setattr(stats, "EXACT_MAX_NONZERO", 0)
    estimate = sign_flip_p_value(before, after, resamples=20_000, seed=1)

    # Monte Carlo standard error <= sqrt(.25 / 20000) = 0.0035.
    assert estimate == pytest.approx(exact, abs=0.015)


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "error", "message"),
    [
        ([0, 1, 1], [0, 1], ValueError, "`before` and `after` must have the same length"),
        ([1], [0], ValueError, "must have at least 2 rows, got 1"),
        (
            [0, 1],
            [0, float("nan")],
            ValueError,
            "`after` must contain finite numbers, got nan at row 1",
        ),
        ([0, float("inf")], [0, 1], ValueError, "`before` must contain finite numbers"),
        ([0, "1"], [0, 1], TypeError, "`before` must contain numbers or None, got '1' at row 1"),
        ([0, 1], "01", TypeError, "`after` must be a sequence of rewards, got str"),
        (0.5, [0, 1], TypeError, "`before` must be a sequence of rewards, got float"),
    ],
)
def test_invalid_rewards_name_the_argument(
    before: object, after: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message.replace("[", r"\[")):
        compare_paired(before, after)  # type: ignore[arg-type]


def test_invalid_options_name_the_argument() -> None:
    with pytest.raises(ValueError, match="`resamples` must be a positive integer, got 0"):
        compare_paired([0, 1], [1, 1], resamples=0)
    with pytest.raises(ValueError, match="`confidence` must be strictly between 0 and 1"):
        bootstrap_interval([0, 1], [1, 1], confidence=1.0)
    with pytest.raises(ValueError, match="`n` must be a positive integer, got 0"):
        minimum_detectable_difference(0, 0.5)
    with pytest.raises(ValueError, match="`sd` must be a finite number >= 0"):
        minimum_detectable_difference(10, -1.0)
    with pytest.raises(ValueError, match="`power` must be strictly between 0 and 1"):
        rows_needed(0.05, 0.5, power=1.0)
    with pytest.raises(ValueError, match="`difference` must be a finite non-zero number"):
        rows_needed(0.0, 0.5)
    with pytest.raises(ValueError, match="`target` must be a finite non-zero number"):
        compare_paired([0, 1], [1, 1]).describe(target=0)


def test_the_result_is_frozen() -> None:
    result = compare_paired([0, 1], [1, 1])
    assert isinstance(result, PairedComparison)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.verdict = "significant gain"  # type: ignore[misc]


# --- simulation -----------------------------------------------------------------------------
# Rows share a latent difficulty u ~ U(0, 1): before = [u < 0.5]; after = [v < p_after], where
# v = u on half the rows (same latent) and a fresh uniform on the others. Then
# Var(after - before) = .25 + p(1-p) - 2 * .5 * (.5 - .5 p)  (the covariance of the shared half);
# for p = 0.65: .25 + .2275 - .175 = .3025, sd .55. rows_needed(0.15, 0.55) = 106 rows, so a
# true gain of 0.15 is the MDE at n = 106 and should be detected about 80% of the time.

DATASETS = 200
RESAMPLES = 2_000  # enough resolution for alpha = 0.05, and keeps the file well under 10 s
SD_TRUE = math.sqrt(0.3025)


def _simulate(p_after: float, n: int, seed: int) -> list[PairedComparison]:
    rng = np.random.default_rng(seed)
    latent = rng.random((DATASETS, n))
    shared = rng.random((DATASETS, n)) < 0.5
    other = np.where(shared, latent, rng.random((DATASETS, n)))
    before, after = (latent < 0.5).astype(float), (other < p_after).astype(float)
    return [
        compare_paired(before[k], after[k], resamples=RESAMPLES, seed=k) for k in range(DATASETS)
    ]


def _binomial_cdf(k: int, trials: int, p: float) -> float:
    return sum(math.comb(trials, i) * p**i * (1 - p) ** (trials - i) for i in range(k + 1))


def _binomial_bounds(trials: int, p: float, tail: float = 0.001) -> tuple[int, int]:
    """The central range holding all but `tail` of Binomial(trials, p) on each side."""
    low = next(k for k in range(trials + 1) if _binomial_cdf(k, trials, p) > tail)
    high = next(k for k in range(trials + 1) if _binomial_cdf(k, trials, p) >= 1 - tail)
    return low, high


def test_a_gain_equal_to_the_mde_is_detected_at_about_80_percent() -> None:
    n = rows_needed(0.15, SD_TRUE)
    assert n == 106
    results = _simulate(0.65, n, seed=2024)
    detected = sum(r.verdict == "significant gain" for r in results)

    # Measured: 159 of 200 (0.795); over 1,000 datasets (another seed) 0.732. The normal
    # approximation is a little optimistic for the sign-flip test on 0/1 rewards (its null
    # variance is (sd**2 + gain**2) / n, not sd**2 / n), so the range allows 0.75 to 0.8:
    # [130, 177] from the binomial 0.1% tails.
    low, _ = _binomial_bounds(DATASETS, 0.75)
    _, high = _binomial_bounds(DATASETS, 0.8)
    assert low <= detected <= high, detected
    assert not any(r.verdict == "significant loss" for r in results)
    # The MDE each dataset reports is, in the middle, the gain simulated.
    mdes = [r.min_detectable_difference for r in results]
    assert float(np.median(mdes)) == pytest.approx(0.15, abs=0.01)


def test_no_true_gain_is_flagged_significant_at_most_about_5_percent() -> None:
    results = _simulate(0.5, 106, seed=2025)
    flagged = sum(r.verdict != "no detectable change" for r in results)

    # Measured: 3 of 200 (0.015); over 1,000 datasets (another seed) 0.037, where the interval
    # alone would flag 0.052. The binomial 0.1% upper bound for 5% is 21 of 200.
    _, high = _binomial_bounds(DATASETS, 0.05)
    assert flagged <= high, flagged


def test_stats_is_a_public_submodule() -> None:
    import optimizer_core

    assert "stats" in optimizer_core.__all__
    assert optimizer_core.stats.compare_paired is compare_paired
