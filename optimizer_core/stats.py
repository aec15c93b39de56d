"""Comparing two evaluations of the same rows: is the change real, and how big could it be?

The studio evaluates a program before and after training on the same test rows,
so the rewards are *paired*: ``before[i]`` and ``after[i]`` score the same row.
Everything here works on the per-row differences ``d[i] = after[i] - before[i]``,
which removes the row-to-row variation in difficulty that both evaluations share.

- `paired_difference`: the mean of ``d`` (equal to ``mean(after) - mean(before)``).
- `bootstrap_interval`: a seeded percentile-bootstrap interval of that mean.
- `sign_flip_p_value`: a two-sided paired permutation test (exact when it can
  enumerate, seeded Monte Carlo otherwise).
- `minimum_detectable_difference` and its inverse `rows_needed`: the normal
  approximation to the power of a paired test.
- `compare_paired`: all of the above in a `PairedComparison`, with a verdict and
  a sentence (`PairedComparison.describe`).

A ``None`` reward is a failed row (the program raised or its output did not
parse). It counts as 0.0, as it does in ``Program.evaluate`` and in every
reward's ``score``: dropping failed rows would drop them unpaired or pair by
pair, either way favouring the evaluation that fails more often, and a
failure is a real outcome of that row.

Only numpy and the standard library are used (normal quantiles come from
`statistics.NormalDist`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "PairedComparison",
    "Verdict",
    "bootstrap_interval",
    "compare_paired",
    "minimum_detectable_difference",
    "paired_difference",
    "rows_needed",
    "sign_flip_p_value",
]

Verdict = Literal["significant gain", "significant loss", "no detectable change"]

Rewards = Iterable[float | None] | npt.NDArray[np.floating] | npt.NDArray[np.integer]

#: Two-sided significance level and power behind `compare_paired`'s verdict and MDE.
ALPHA = 0.05
POWER = 0.8

#: Up to this many non-zero differences the permutation test enumerates all
#: 2**m sign patterns (by meeting in the middle: two sorted lists of 2**(m/2)
#: sums, so 2**30 patterns cost two lists of 32,768); beyond it, Monte Carlo.
EXACT_MAX_NONZERO = 30

#: The sd assumed when every paired difference is the same (the observed sd is
#: 0 and says nothing): the largest sd a single reward in [0, 1] can have, a fair
#: coin's. Two evaluations of the same rows are usually positively correlated, so
#: their difference's sd is typically near or below it.
FALLBACK_SD = 0.5

# Sums compared against the observed one are equal "in exact arithmetic" far more
# often than floats say (0/1 rewards give integer sums); ties count as extreme.
_RELATIVE_TOLERANCE = 1e-9
# Resamples are drawn in blocks of about this many numbers, so memory stays
# bounded for large evaluations (10,000 resamples of 10,000 rows would be 800 MB).
_BLOCK_ELEMENTS = 1 << 21


def _as_rewards(values: Rewards, *, argument: str) -> npt.NDArray[np.float64]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise TypeError(f"`{argument}` must be a sequence of rewards, got {type(values).__name__}")
    out: list[float] = []
    for row, value in enumerate(values):
        if value is None:
            out.append(0.0)  # a failed row scores 0, as in Program.evaluate
            continue
        if isinstance(value, str | bytes) or not isinstance(value, int | float | np.number):
            raise TypeError(
                f"`{argument}` must contain numbers or None, got {value!r} at row {row}"
            )
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"`{argument}` must contain finite numbers, got {number} at row {row}")
        out.append(number)
    return np.asarray(out, dtype=np.float64)


def _paired(
    before: Rewards, after: Rewards
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    first = _as_rewards(before, argument="before")
    second = _as_rewards(after, argument="after")
    if first.size != second.size:
        raise ValueError(
            "`before` and `after` must have the same length (one reward per row, paired), "
            f"got {first.size} and {second.size}"
        )
    if first.size < 2:
        raise ValueError(f"`before` and `after` must have at least 2 rows, got {first.size}")
    return first, second


def _check_resamples(resamples: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"`resamples` must be a positive integer, got {resamples!r}")


def _check_probability(value: float, *, argument: str) -> None:
    if not isinstance(value, int | float) or not 0.0 < value < 1.0:
        raise ValueError(f"`{argument}` must be strictly between 0 and 1, got {value!r}")


def _check_sd(sd: float) -> None:
    if not isinstance(sd, int | float) or not math.isfinite(sd) or sd < 0:
        raise ValueError(f"`sd` must be a finite number >= 0, got {sd!r}")


def paired_difference(before: Rewards, after: Rewards) -> float:
    """The mean paired difference ``mean(after[i] - before[i])``.

    Args:
        before: per-row rewards of the first evaluation (``None`` = failed row = 0.0).
        after: per-row rewards of the second evaluation, on the same rows in the same order.

    Raises:
        ValueError: lengths differ, fewer than 2 rows, or a reward is not finite.
        TypeError: a reward is neither a number nor ``None``.

    Example:
        ```python
        paired_difference([0, 1, 0.5], [1, 1, 0.5])  # 0.333...
        ```
    """
    first, second = _paired(before, after)
    return float(np.mean(second - first))


def bootstrap_interval(
    before: Rewards,
    after: Rewards,
    *,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int | None = 0,
) -> tuple[float, float]:
    """A percentile-bootstrap interval of the mean paired difference.

    Rows are resampled with replacement (both rewards of a row travel together),
    ``resamples`` times; the interval is the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles of the resampled means.

    Why percentile rather than BCa: the statistic is a plain mean of bounded
    differences, whose bootstrap distribution is close to symmetric, where BCa's
    corrections are small; where they would matter (a few dozen rows, skewed
    differences) its acceleration, estimated by a jackknife, is itself noisy.
    The percentile interval is the one a reader can reproduce from one sentence.
    Its known weakness is that it is slightly too narrow for small n (it has no
    t-correction, and with every difference equal it collapses to a point), which
    is why `compare_paired` also requires the permutation test to agree.

    Args:
        before: per-row rewards of the first evaluation (``None`` = failed row = 0.0).
        after: per-row rewards of the second evaluation, on the same rows.
        confidence: the interval's coverage, strictly between 0 and 1 (default 0.95).
        resamples: the number of bootstrap resamples (default 10,000).
        seed: seeds the resampling, so the same inputs give the same interval
            (default 0; ``None`` draws fresh entropy).

    Returns:
        ``(low, high)``.

    Example:
        ```python
        bootstrap_interval([0, 0, 1, 0] * 10, [1, 0, 1, 1] * 10, seed=0)  # about (0.35, 0.65)
        ```
    """
    _check_probability(confidence, argument="confidence")
    _check_resamples(resamples)
    first, second = _paired(before, after)
    differences = second - first
    n = differences.size
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_ELEMENTS // n)
    means = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        rows = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = differences[rows].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def _signed_sums(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """All 2**len(values) sums ``sum(s[i] * values[i])`` over signs ``s[i]`` in {-1, +1}."""
    sums = np.zeros(1, dtype=np.float64)
    for value in values:
        sums = np.concatenate((sums + value, sums - value))
    return sums


def _exact_extreme_count(nonzero: npt.NDArray[np.float64], threshold: float) -> int:
    """How many of the 2**m sign patterns give ``|sum| >= threshold`` (meet in the middle)."""
    half = nonzero.size // 2
    left = _signed_sums(nonzero[:half])
    right = np.sort(_signed_sums(nonzero[half:]))
    # |a + b| >= t  <=>  b >= t - a  or  b <= -t - a  (disjoint because t > 0).
    above = right.size - np.searchsorted(right, threshold - left, side="left")
    below = np.searchsorted(right, -threshold - left, side="right")
    return int(above.sum() + below.sum())


def sign_flip_p_value(
    before: Rewards,
    after: Rewards,
    *,
    resamples: int = 10_000,
    seed: int | None = 0,
) -> float:
    """The two-sided p-value of a paired sign-flip permutation test of "no change".

    Under the null hypothesis each row's two rewards are exchangeable, so each
    difference is as likely to have either sign. The statistic is ``|sum(d)|``;
    the p-value is the share of the 2**m sign patterns of the m non-zero
    differences whose ``|sum|`` is at least the observed one (ties count as
    extreme). Zero differences (ties, rows scored the same both times) carry no
    information: flipping their sign changes nothing, so including them or not
    gives the same p-value; they are left out only to keep m, and 2**m, small.
    With no non-zero difference at all the p-value is 1.

    Up to `EXACT_MAX_NONZERO` non-zero differences every pattern is counted
    (exact, no randomness). Beyond it, ``resamples`` random patterns are drawn and
    the p-value is ``(1 + extreme) / (1 + resamples)``: the +1 counts the observed
    pattern, which keeps the test valid (never below ``1 / (resamples + 1)``).

    Args:
        before: per-row rewards of the first evaluation (``None`` = failed row = 0.0).
        after: per-row rewards of the second evaluation, on the same rows.
        resamples: random sign patterns for the Monte Carlo test (default 10,000).
        seed: seeds the Monte Carlo test (default 0; ``None`` draws fresh entropy).

    Example:
        ```python
        sign_flip_p_value([0, 0, 0], [1, 1, 1])  # 0.25: 2 of the 8 patterns reach |sum| = 3
        ```

    References:
        Fisher, *The Design of Experiments* (1935), section 21 (the paired
        randomisation test); Phipson and Smyth, "Permutation P-values Should
        Never Be Zero" (2010), for the +1 correction.
    """
    _check_resamples(resamples)
    first, second = _paired(before, after)
    differences = second - first
    nonzero = differences[differences != 0.0]
    if nonzero.size == 0:
        return 1.0
    observed = abs(float(nonzero.sum()))
    threshold = observed - _RELATIVE_TOLERANCE * float(np.abs(nonzero).sum())
    if nonzero.size <= EXACT_MAX_NONZERO:
        return _exact_extreme_count(nonzero, threshold) / 2.0 ** int(nonzero.size)
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_ELEMENTS // nonzero.size)
    extreme = 0
    for start in range(0, resamples, block):
        size = min(resamples, start + block) - start
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, nonzero.size))
        extreme += int(np.count_nonzero(np.abs(signs @ nonzero) >= threshold))
    return (1 + extreme) / (1 + resamples)


def _z_sum(alpha: float, power: float) -> float:
    _check_probability(alpha, argument="alpha")
    _check_probability(power, argument="power")
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)


def minimum_detectable_difference(
    n: int, sd: float, *, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The smallest true mean difference that n paired rows detect with the given power.

    Normal approximation to a two-sided paired test:
    ``(z(1 - alpha/2) + z(power)) * sd / sqrt(n)``, about ``2.80 * sd / sqrt(n)``
    at the defaults. ``sd`` is the standard deviation of the paired differences.
    It is an approximation: on 0/1 rewards the sign-flip test is slightly
    conservative, and in the simulation test (tests/test_stats.py) a true gain
    equal to the MDE was detected about 75% of the time rather than 80%.

    Args:
        n: the number of paired rows, >= 1.
        sd: the sd of the paired differences, >= 0 (`compare_paired` passes the
            observed one, or `FALLBACK_SD` when it is 0).
        alpha: the two-sided significance level (default 0.05).
        power: the probability of detecting a true difference of that size (default 0.8).

    Example:
        ```python
        minimum_detectable_difference(40, 0.5)  # 0.2215: 2.8016 * 0.5 / sqrt(40)
        ```
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"`n` must be a positive integer, got {n!r}")
    _check_sd(sd)
    return _z_sum(alpha, power) * sd / math.sqrt(n)


def rows_needed(difference: float, sd: float, *, alpha: float = ALPHA, power: float = POWER) -> int:
    """How many paired rows detect a true mean difference of ``difference`` (the MDE's inverse).

    ``ceil(((z(1 - alpha/2) + z(power)) * sd / |difference|) ** 2)``, at least 2.

    Args:
        difference: the true mean difference to detect; its sign does not matter, it must not be 0.
        sd: the sd of the paired differences, >= 0.
        alpha: the two-sided significance level (default 0.05).
        power: the probability of detecting it (default 0.8).

    Example:
        ```python
        rows_needed(0.05, 0.5)  # 785: (2.8016 * 0.5 / 0.05) ** 2 = 784.9
        ```
    """
    if not isinstance(difference, int | float) or not math.isfinite(difference) or difference == 0:
        raise ValueError(f"`difference` must be a finite non-zero number, got {difference!r}")
    _check_sd(sd)
    exact = (_z_sum(alpha, power) * sd / abs(difference)) ** 2
    return max(2, math.ceil(exact - 1e-9))  # 1e-9: 160.00000000000003 rows are 160


@dataclass(frozen=True)
class PairedComparison:
    """Two evaluations of the same rows, compared (what `compare_paired` returns).

    Attributes:
        n: the number of paired rows.
        mean_before: the mean reward of the first evaluation.
        mean_after: the mean reward of the second evaluation.
        difference: ``mean_after - mean_before``, the mean paired difference.
        ci_low: the low end of the 95% percentile-bootstrap interval of ``difference``.
        ci_high: its high end.
        p_value: the two-sided sign-flip permutation p-value.
        min_detectable_difference: the true difference these n rows detect with
            power 0.8 at alpha 0.05, from the observed sd of the differences.
        verdict: "significant gain", "significant loss" or "no detectable change".
    """

    n: int
    mean_before: float
    mean_after: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    min_detectable_difference: float
    verdict: Verdict

    def rows_needed(self, target: float = 0.05) -> int:
        """About how many rows would detect a true change of ``target`` (same sd, alpha, power).

        The MDE scales as ``1 / sqrt(n)``, so this is ``n * (mde / target) ** 2``.

        Args:
            target: the change to detect, non-zero (default 0.05).
        """
        if not isinstance(target, int | float) or not math.isfinite(target) or target == 0:
            raise ValueError(f"`target` must be a finite non-zero number, got {target!r}")
        exact = self.n * (self.min_detectable_difference / abs(target)) ** 2
        return max(2, math.ceil(exact - 1e-9))

    def describe(self, target: float = 0.05) -> str:
        """The verdict as one human sentence, with the rows-needed hint when nothing was detected.

        Args:
            target: the gain the hint sizes the evaluation for (default 0.05).

        Example:
            ```python
            compare_paired(before, after).describe()
            # "no detectable change at n=40: mean reward 0.500 -> 0.525 (+0.025,
            #  95% CI [-0.050, +0.100], p = 0.62); the smallest change 40 rows detect
            #  reliably is about 0.14: you need about 320 rows to see a gain of 0.05."
            ```
        """
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.2g}"
        facts = (
            f"mean reward {self.mean_before:.3f} -> {self.mean_after:.3f} "
            f"({self.difference:+.3f}, 95% CI [{self.ci_low:+.3f}, {self.ci_high:+.3f}], {p})"
        )
        sentence = f"{self.verdict} at n={self.n}: {facts}"
        if self.verdict != "no detectable change":
            return sentence + "."
        needed = self.rows_needed(target)
        size = f"{abs(target):g}"
        if needed <= self.n:
            return (
                f"{sentence}; {self.n} rows detect a gain of {size} at least 80% of the time, "
                f"so a real change is probably smaller than that."
            )
        return (
            f"{sentence}; the smallest change {self.n} rows detect reliably is about "
            f"{self.min_detectable_difference:.2g}: you need about {needed} rows "
            f"to see a gain of {size}."
        )


def compare_paired(
    before: Rewards,
    after: Rewards,
    *,
    resamples: int = 10_000,
    seed: int | None = 0,
) -> PairedComparison:
    """Compare two evaluations of the same rows: difference, 95% interval, p-value, MDE, verdict.

    The verdict is "significant gain" (or "loss") only when **both** the
    permutation p-value is below 0.05 **and** the 95% bootstrap interval lies
    entirely above (or below) 0; otherwise "no detectable change". The p-value
    decides: it is exact (or Monte Carlo with a valid correction), so "significant"
    appears on at most 5% of comparisons with no true change. The interval is a
    guard, so the sentence never contradicts a number printed beside it; on its
    own it would be too eager at small n (two rows that both improved by 1 give
    the interval [1, 1], which excludes 0, while the exact p-value is 0.5).

    Args:
        before: per-row rewards of the first evaluation (``None`` = failed row = 0.0).
        after: per-row rewards of the second evaluation, on the same rows in the same order.
        resamples: bootstrap resamples, and random sign patterns when the
            permutation test cannot enumerate (default 10,000).
        seed: seeds both (default 0, so the same inputs always give the same
            result; ``None`` draws fresh entropy).

    Raises:
        ValueError: lengths differ, fewer than 2 rows, a reward is not finite,
            or ``resamples`` < 1.
        TypeError: a reward is neither a number nor ``None``.

    Example:
        ```python
        result = compare_paired(before=[0, 1, 0, 1] * 10, after=[1, 1, 0, 1] * 10)
        result.verdict      # "significant gain"
        result.describe()   # "significant gain at n=40: mean reward 0.500 -> 0.750 (...)."
        ```
    """
    first, second = _paired(before, after)
    differences = second - first
    ci_low, ci_high = bootstrap_interval(first, second, resamples=resamples, seed=seed)
    p_value = sign_flip_p_value(first, second, resamples=resamples, seed=seed)
    # Equal differences have sd 0 in exact arithmetic; np.std may return 1e-17.
    constant = float(np.ptp(differences)) == 0.0
    sd = FALLBACK_SD if constant else float(np.std(differences, ddof=1))
    mde = minimum_detectable_difference(int(differences.size), sd)
    verdict: Verdict = "no detectable change"
    if p_value < ALPHA and ci_low > 0:
        verdict = "significant gain"
    elif p_value < ALPHA and ci_high < 0:
        verdict = "significant loss"
    return PairedComparison(
        n=int(differences.size),
        mean_before=float(first.mean()),
        mean_after=float(second.mean()),
        difference=float(differences.mean()),
        ci_low=ci_low,
        ci_high=ci_high,
        p_value=p_value,
        min_detectable_difference=mde,
        verdict=verdict,
    )
