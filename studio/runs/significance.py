"""Is a run's gain real? Paired comparisons of per-row rewards, as the API gives them.

A run stores each test row's reward before and after training, in row order
(`Run.before_rewards`, `Run.after_rewards`), so its gain is a *paired*
comparison (`optimizer_core.stats.compare_paired`): the mean difference, its 95%
bootstrap interval, a permutation p-value and a verdict ("significant gain",
"significant loss", "no detectable change") with the rows a smaller change
would need. Two runs compare the same way, row by row, only when they evaluated
the same test rows (same dataset, same test split: `Run.test_rows_digest`);
otherwise only the difference of their means is given, and why it is not paired.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from optimizer_core.stats import compare_paired
from studio.runs.models import Run

JsonDict = dict[str, Any]

#: The gain the rows-needed hints size an evaluation for.
TARGET_GAIN = 0.05
#: Bootstrap resamples x rows per comparison: 10,000 resamples up to 400 rows, fewer
#: (never under 1,000) beyond, so a comparison of 10,000 rows stays well under a second.
_RESAMPLE_BUDGET = 4_000_000


def resamples_for(n: int) -> int:
    """Bootstrap resamples (and Monte Carlo sign patterns) for ``n`` paired rows."""
    return max(1_000, min(10_000, _RESAMPLE_BUDGET // max(1, n)))


def rows_digest(inputs: Sequence[Any], targets: Sequence[Any]) -> str:
    """sha256 of the test rows, inputs and targets in order (what pairs two runs)."""
    digest = hashlib.sha256()
    for row in zip(inputs, targets, strict=True):
        digest.update(json.dumps(row, sort_keys=True, default=str).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def comparison(before: Sequence[float | None], after: Sequence[float | None]) -> JsonDict:
    """`compare_paired` as JSON, with the rows a gain of `TARGET_GAIN` needs.

    Returns:
        ``{n, mean_before, mean_after, difference, ci_low, ci_high, p_value,
        min_detectable_difference, verdict, target, rows_needed, sentence}``.
    """
    result = compare_paired(before, after, resamples=resamples_for(len(before)), seed=0)
    return {
        "n": result.n,
        "mean_before": result.mean_before,
        "mean_after": result.mean_after,
        "difference": result.difference,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "p_value": result.p_value,
        "min_detectable_difference": result.min_detectable_difference,
        "verdict": result.verdict,
        "target": TARGET_GAIN,
        "rows_needed": result.rows_needed(TARGET_GAIN),
        "sentence": result.describe(TARGET_GAIN),
    }


def _rewards(values: Any) -> list[float | None] | None:
    return list(values) if isinstance(values, list) and len(values) >= 2 else None


def run_gain(run: Run) -> JsonDict | None:
    """The run's after against its own before, row by row; None until both are stored."""
    before, after = _rewards(run.before_rewards), _rewards(run.after_rewards)
    if before is None or after is None or len(before) != len(after):
        return None
    return comparison(before, after)


def _mean(values: list[float | None]) -> float:
    return sum(v or 0.0 for v in values) / len(values)


def versus(baseline: Run, run: Run) -> JsonDict:
    """``run``'s rewards after training against ``baseline``'s, paired by row when they can be.

    Returns:
        ``{baseline, paired, reason, comparison, difference}``: ``comparison`` (as
        `comparison` gives it) when both runs evaluated the same test rows, else
        None with ``reason`` saying why; ``difference`` is the difference of the
        mean rewards after training either way (None until both have them).
    """
    first, second = _rewards(baseline.after_rewards), _rewards(run.after_rewards)
    entry: JsonDict = {
        "baseline": baseline.pk,
        "paired": False,
        "reason": "",
        "comparison": None,
        "difference": None if first is None or second is None else _mean(second) - _mean(first),
    }
    if first is None or second is None:
        entry["reason"] = "no per-row rewards after training yet"
    elif baseline.dataset_id != run.dataset_id:
        entry["reason"] = "different datasets: the rows cannot be paired"
    elif (
        not baseline.test_rows_digest
        or baseline.test_rows_digest != run.test_rows_digest
        or len(first) != len(second)
    ):
        entry["reason"] = "different test rows (the dataset's test split changed)"
    else:
        entry["paired"] = True
        entry["comparison"] = comparison(first, second)
    return entry
