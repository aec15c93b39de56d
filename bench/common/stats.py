"""Medians over a benchmark's repeated runs (runs are the dicts the runners collect)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from typing import Any

Run = dict[str, Any]


def median(values: Iterable[Any]) -> float | None:
    """The median of the values that are not None; None when there are none."""
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def median_of(runs: list[Run], pick: str | Callable[[Run], Any]) -> float | None:
    """The median over the runs of a key (a missing or None value is left out) or a picker."""
    if isinstance(pick, str):
        key = pick
        return median(run.get(key) for run in runs)
    return median(pick(run) for run in runs)


def median_series(runs: list[Run], key: str) -> list[float] | None:
    """Element-wise median of a per-epoch series over the runs (None without runs)."""
    series = [run[key] for run in runs if isinstance(run.get(key), list)]
    if not series:
        return None
    length = min(len(s) for s in series)
    return [statistics.median(s[i] for s in series) for i in range(length)]


def history_at(key: str, index: int) -> Callable[[Run], Any]:
    """A picker for ``history[key][index]`` of a run (None when the series is missing)."""

    def pick(run: Run) -> Any:
        series = (run.get("history") or {}).get(key) or []
        return series[index] if series else None

    return pick
