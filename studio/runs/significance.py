"""Is a run's gain real? Paired comparisons of per-row rewards, as the API gives them.

A run stores each test row's reward before and after training, in row order
(`Run.before_rewards`, `Run.after_rewards`), so its gain is a *paired*
comparison (`optimizer_core.stats.compare_paired`): the mean difference, its 95%
bootstrap interval, a permutation p-value and a verdict ("significant gain",
"significant loss", "no detectable change") with the rows a smaller change
would need. Two runs of the same dataset compare the same way, row by row, on
the test rows they both evaluated: each run keeps its test rows' keys
(`Run.test_row_keys`, the rows' content hashes as dataset versions compute them),
so two runs on different versions of a dataset pair on the rows the versions
share, identical in inputs and targets, and the comparison says that their test
versions differ. Runs stored before keys existed pair only when all their test rows
are the same (`Run.test_rows_digest`). Otherwise only the difference of their means
is given, and why it is not paired.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
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


def paired_gain(before_rewards: Any, after_rewards: Any) -> JsonDict | None:
    """After against before, row by row; None unless both hold the same rows (two or more)."""
    before, after = _rewards(before_rewards), _rewards(after_rewards)
    if before is None or after is None or len(before) != len(after):
        return None
    return comparison(before, after)


def run_gain(run: Run) -> JsonDict | None:
    """The run's after against its own before, row by row; None until both are stored.

    A run that ended stores it (`Run.gain`); one from before that column is computed.
    """
    if run.gain is not None:
        return dict(run.gain)
    return paired_gain(run.before_rewards, run.after_rewards)


def _mean(values: list[float | None]) -> float:
    return sum(v or 0.0 for v in values) / len(values)


def shared_rows(first: Sequence[str], second: Sequence[str]) -> tuple[list[int], list[int]]:
    """Positions of the rows two key lists share: the k-th copy of a key pairs with the k-th.

    Returns:
        ``(positions in first, positions in second)``, in ``second``'s order.
    """
    slots: dict[str, list[int]] = defaultdict(list)
    for position, key in enumerate(first):
        slots[key].append(position)
    used: dict[str, int] = defaultdict(int)
    mine: list[int] = []
    theirs: list[int] = []
    for position, key in enumerate(second):
        taken = used[key]
        if taken < len(slots.get(key, ())):
            mine.append(slots[key][taken])
            theirs.append(position)
            used[key] = taken + 1
    return mine, theirs


def _keys(run: Run, rewards: list[float | None]) -> list[str] | None:
    keys = run.test_row_keys
    return list(keys) if isinstance(keys, list) and len(keys) == len(rewards) else None


def _version_number(run: Run) -> int | None:
    version = run.dataset_version
    return version.number if version is not None else None


def versus(baseline: Run, run: Run) -> JsonDict:
    """``run``'s rewards after training against ``baseline``'s, paired by row when they can be.

    Returns:
        ``{baseline, paired, reason, note, rows, test_versions, comparison, difference}``:
        ``comparison`` (as `comparison` gives it) on the ``rows`` test rows both runs
        evaluated, when they share at least two, else None with ``reason`` saying why;
        ``note`` says when the runs' test versions differ (and so what was paired);
        ``test_versions``: each run's dataset version number; ``difference`` is the
        difference of the mean rewards after training over all each run's rows (None
        until both have them).
    """
    first, second = _rewards(baseline.after_rewards), _rewards(run.after_rewards)
    versions = {"baseline": _version_number(baseline), "run": _version_number(run)}
    entry: JsonDict = {
        "baseline": baseline.pk,
        "paired": False,
        "reason": "",
        "note": "",
        "rows": 0,
        "test_versions": versions,
        "comparison": None,
        "difference": None if first is None or second is None else _mean(second) - _mean(first),
    }
    if first is None or second is None:
        entry["reason"] = "no per-row rewards after training yet"
        return entry
    if baseline.dataset_id != run.dataset_id:
        entry["reason"] = "different datasets: the rows cannot be paired"
        return entry
    differ = versions["baseline"] != versions["run"]
    first_keys, second_keys = _keys(baseline, first), _keys(run, second)
    if first_keys is not None and second_keys is not None:
        mine, theirs = shared_rows(first_keys, second_keys)
        if differ:
            entry["note"] = (
                f"different test versions (v{versions['baseline']} and v{versions['run']}): "
                f"paired on the {len(mine)} test rows both evaluated, identical in inputs and "
                f"targets (of {len(first)} and {len(second)})"
            )
        elif len(mine) < max(len(first), len(second)):
            entry["note"] = (
                f"paired on the {len(mine)} test rows both evaluated "
                f"(of {len(first)} and {len(second)})"
            )
        if len(mine) < 2:
            entry["reason"] = "the runs share fewer than 2 test rows: nothing to pair"
            return entry
        entry.update(
            paired=True,
            rows=len(mine),
            comparison=comparison([first[i] for i in mine], [second[i] for i in theirs]),
        )
        return entry
    if (
        not baseline.test_rows_digest
        or baseline.test_rows_digest != run.test_rows_digest
        or len(first) != len(second)
    ):
        entry["reason"] = "different test rows (the dataset's test split changed)"
        if differ:
            entry["note"] = (
                f"different test versions (v{versions['baseline']} and v{versions['run']})"
            )
        return entry
    entry.update(paired=True, rows=len(first), comparison=comparison(first, second))
    return entry
