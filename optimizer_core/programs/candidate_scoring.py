"""Scoring candidates during `fit`: each step's minibatch, and the results already known.

A candidate is a set of values of the program's trainable variables. Within one
`fit`, the result of a candidate on a validation row (its output and reward)
is computed once: `ResultCache` keys it by (the candidate's trainable values,
the row's position in `fit`'s data) and hands it back to every later request,
whether the request comes from a proposal's minibatch (the same value proposed
again, or its other rows), or from the validation pass at an epoch's end (the
candidate in force was scored on some validation rows when it was proposed,
and an epoch that kept the previous epoch's candidate costs nothing to
validate again). Two requests for the same result in the same round share one
call. A failed row (no output) is not kept: the next request tries it again.

The cache holds results in evaluation mode only (candidate scoring and
validation); training batches are always predicted, since their traces feed
the optimizer.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from optimizer_core.datamodels import JsonDict
from optimizer_core.optimizers.steps import Minibatch, RowRewards
from optimizer_core.variables import Variable


class RowResult(Protocol):
    """One row's result (the trainer's `SampleResult`)."""

    output: Any
    reward: float
    feedback: str | None


Row = tuple[int, Any, Any]
"""A row: its position in `fit`'s data (training rows, then validation rows), x, y."""

RunRows = Callable[[list[Any], list[Any], Mapping[str, Mapping[str, Any]]], Awaitable[list[Any]]]
"""Predict and score rows with the given values: ``run(xs, ys, values) -> [RowResult]``."""


class ResultCache:
    """Each (candidate, row) result known in this fit; see the module docstring.

    Args:
        variables: every variable of the program (the values a candidate runs with).
        run_rows: predicts and scores rows with given values, in evaluation mode.
    """

    def __init__(self, variables: Sequence[Variable], run_rows: RunRows) -> None:
        self.variables = list(variables)
        self.run_rows = run_rows
        self.hits = 0
        self.misses = 0
        self._results: dict[tuple[str, int], asyncio.Future[Any]] = {}

    def values_for(self, trial: Mapping[str, JsonDict]) -> dict[str, dict[str, Any]]:
        """Every variable's values as they are now, with `trial`'s trainable fields in place."""
        values: dict[str, dict[str, Any]] = {}
        for variable in self.variables:
            values[variable.name] = {**variable.peek(), **variable.get_trainable_json()}
            if variable.name in trial:
                values[variable.name].update(trial[variable.name])
        return values

    def identity(self, values: Mapping[str, Mapping[str, Any]]) -> str:
        """The candidate's identity: a digest of every trainable variable's trainable fields."""
        trainable = {
            v.name: {k: values[v.name].get(k) for k in v.trainable_fields}
            for v in self.variables
            if v.trainable and v.name in values
        }
        text = json.dumps(trainable, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    async def results(
        self, values: Mapping[str, Mapping[str, Any]], rows: Sequence[Row]
    ) -> list[Any]:
        """Each row's result with `values`, in row order; only the unknown ones are run."""
        identity = self.identity(values)
        loop = asyncio.get_running_loop()
        waiting: list[asyncio.Future[Any]] = []
        mine: list[tuple[Row, asyncio.Future[Any]]] = []
        for row in rows:
            key = (identity, row[0])
            future = self._results.get(key)
            if future is None:
                future = loop.create_future()
                self._results[key] = future
                mine.append((row, future))
                self.misses += 1
            else:
                self.hits += 1
            waiting.append(future)
        if mine:
            try:
                computed = await self.run_rows(
                    [row[1] for row, _ in mine], [row[2] for row, _ in mine], values
                )
            except BaseException as error:
                for row, future in mine:
                    self._results.pop((identity, row[0]), None)
                    if future.done():
                        continue
                    if isinstance(error, asyncio.CancelledError):
                        future.cancel()
                    else:
                        future.set_exception(error)
                        future.exception()  # marked retrieved: this caller raises it
                raise
            for (row, future), result in zip(mine, computed, strict=True):
                future.set_result(result)
                if result.failed:
                    self._results.pop((identity, row[0]), None)
        return list(await asyncio.gather(*waiting))


class CandidateMinibatch(Minibatch):
    """A step's minibatch: rows drawn by `fit`, scored through the fit's `ResultCache`.

    Args:
        cache: the fit's results.
        rows: the minibatch's rows, in the order they are scored.
    """

    def __init__(self, cache: ResultCache, rows: Sequence[Row]) -> None:
        self.cache = cache
        self.rows = list(rows)

    @property
    def size(self) -> int:
        return len(self.rows)

    def values_for(self, trial: Mapping[str, JsonDict]) -> Any:
        return self.cache.values_for(trial)

    async def score(self, values: Any, indices: Sequence[int]) -> RowRewards:
        rows = [self.rows[i] for i in indices]
        results = await self.cache.results(values, rows)
        return RowRewards(
            rewards=[float(result.reward) for result in results],
            rows=[row[0] for row in rows],
            feedback=[result.feedback for result in results],
        )

    def row_ids(self) -> list[int]:
        return [row[0] for row in self.rows]


__all__ = ["CandidateMinibatch", "ResultCache", "Row", "RowResult"]
