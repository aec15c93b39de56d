"""The rows of one `fit`: the validation split, and each epoch's batches in their order.

`split_validation` holds validation rows out (the last fraction, or the rows
given apart); `EpochIterator` yields each epoch's batches, the training rows
reshuffled every epoch by the fit's random generator, and draws each step's
minibatch from that same generator, so a seeded fit, and a resumed one
(`fit_state.FitState` saves the generator), predicts the same batches and
scores its candidates on the same rows.

Rows are named by their position in the fit's data: the training rows, then the
validation rows (`candidate_scoring.Row`); the optimizer's events and the
candidates' ``row_rewards`` use those positions.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator
from typing import Any

from optimizer_core.datamodels import JsonDict
from optimizer_core.exceptions import DataError
from optimizer_core.programs.candidate_scoring import Row


@dataclasses.dataclass(frozen=True)
class FitData:
    """A fit's training rows and validation rows (either may be given apart)."""

    x_train: list[Any]
    y_train: list[Any]
    x_val: list[Any]
    y_val: list[Any]

    @property
    def has_validation(self) -> bool:
        return len(self.x_val) > 0

    def validation_rows(self) -> list[Row]:
        """The validation rows, named after the training rows."""
        first = len(self.x_train)
        return [
            (first + i, x, y) for i, (x, y) in enumerate(zip(self.x_val, self.y_val, strict=True))
        ]


def split_validation(
    x_rows: list[Any],
    y_rows: list[Any],
    *,
    validation_split: float,
    validation_data: tuple[list[Any], list[Any]] | None,
) -> FitData:
    """Hold validation rows out: `validation_data` when given, else the last fraction.

    Args:
        x_rows: the input rows, checked.
        y_rows: the target rows, one per input.
        validation_split: the fraction in [0, 1) of the rows taken from the end
            (15 rows at 0.2 give 12 training and 3 validation rows).
        validation_data: ``(x_val, y_val)``, checked; overrides `validation_split`.

    Raises:
        ValueError: `validation_split` is not in [0, 1).
        DataError: the split leaves no training row.
    """
    if not isinstance(validation_split, int | float) or not 0.0 <= validation_split < 1.0:
        raise ValueError(f"`validation_split` must be in [0, 1), got {validation_split!r}")
    if validation_data is not None:
        return FitData(x_rows, y_rows, *validation_data)
    if validation_split <= 0:
        return FitData(x_rows, y_rows, [], [])
    split_at = int(len(x_rows) * (1.0 - validation_split))
    if split_at == 0:
        raise DataError(
            f"`validation_split`={validation_split} leaves no training rows out of {len(x_rows)}"
        )
    return FitData(x_rows[:split_at], y_rows[:split_at], x_rows[split_at:], y_rows[split_at:])


@dataclasses.dataclass(frozen=True)
class Batch:
    """One training batch.

    Args:
        step: its number in the epoch.
        index: its rows' positions among the training rows.
        x: its input rows.
        y: its target rows.
        order: the epoch's order of every training row (where the others are).
    """

    step: int
    index: list[int]
    x: list[Any]
    y: list[Any]
    order: list[int]


class EpochIterator:
    """Each epoch's batches, and each step's minibatch, drawn by the fit's generator.

    Args:
        data: the fit's rows.
        batch_size: training rows per batch.
        minibatch_size: rows each step's proposals are scored on (None: every one).
        shuffle: reshuffle the training rows each epoch (else their order).
        seed: the seed of the generator (`FitState.seed` may then set its state).
    """

    def __init__(
        self,
        data: FitData,
        *,
        batch_size: int,
        minibatch_size: int | None,
        shuffle: bool,
        seed: int | None,
    ) -> None:
        check_positive_int(batch_size, "batch_size")
        if minibatch_size is not None:
            check_positive_int(minibatch_size, "minibatch_size")
        self.data = data
        self.batch_size = batch_size
        self.minibatch_size = minibatch_size
        self.shuffle = shuffle
        self.seed = seed
        self.rng = random.Random(seed)

    @property
    def signature(self) -> JsonDict:
        """What a resumed fit must share with the saved one to draw the same rows."""
        return {
            "seed": self.seed,
            "shuffle": bool(self.shuffle),
            "batch_size": self.batch_size,
            "minibatch_size": self.minibatch_size,
            "train_rows": len(self.data.x_train),
            "validation_rows": len(self.data.x_val),
        }

    @property
    def steps(self) -> int:
        """Batches per epoch."""
        return math.ceil(len(self.data.x_train) / self.batch_size)

    def epoch(self) -> Iterator[Batch]:
        """The batches of one epoch, in this epoch's order (drawn when the first is asked for)."""
        data = self.data
        order = list(range(len(data.x_train)))
        if self.shuffle:
            self.rng.shuffle(order)
        for step in range(self.steps):
            index = order[step * self.batch_size : (step + 1) * self.batch_size]
            yield Batch(
                step=step,
                index=index,
                x=[data.x_train[i] for i in index],
                y=[data.y_train[i] for i in index],
                order=order,
            )

    def minibatch(self, batch: Batch) -> list[Row]:
        """The rows a step's proposals are scored on, `minibatch_size` of them.

        Drawn from the validation rows; without any, from the training rows
        outside the batch (the batch itself when there are none).
        """
        data = self.data
        if data.has_validation:
            pool = data.validation_rows()
        else:
            in_batch = set(batch.index)
            rest = [i for i in batch.order if i not in in_batch] or batch.index
            pool = [(i, data.x_train[i], data.y_train[i]) for i in rest]
        size = len(pool) if self.minibatch_size is None else min(self.minibatch_size, len(pool))
        return self.rng.sample(pool, size)


def check_positive_int(value: Any, argument: str) -> None:
    """Refuse anything but an int >= 1 (a bool too), naming the argument."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"`{argument}` must be a positive integer, got {value!r}")


__all__ = ["Batch", "EpochIterator", "FitData", "check_positive_int", "split_validation"]
