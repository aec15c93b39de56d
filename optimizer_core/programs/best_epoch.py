"""The best epoch of a `fit`: which one, its score, its values, restored at the end.

`fit` keeps the variables of its best epoch, as Keras's
``EarlyStopping(restore_best_weights=True)`` keeps the best weights: an epoch
that ends worse than an earlier one on the monitored figure is undone when the
fit ends. The monitored figure is ``val_reward`` with validation rows, else the
training ``reward``. With ``fit(validate_start=True)`` the starting values
compete too, recorded as epoch `START_EPOCH` from a validation pass before the
first epoch: a fit then never ends worse on the validation rows than it began.

**Ties.** An epoch replaces the best when it scores higher, or when it ties
the starting values (`BestEpoch.improves`): training that changes no score is
kept, as the reference library keeps its trained examples. Between two trained
epochs the earlier stays.

What is kept of an epoch (`Snapshot`) is each trainable variable's trainable
fields and the candidate it had in force, enough to put the variables back as
they were; the optimizer's populations are not rolled back (they keep what the
later epochs found).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

from optimizer_core.datamodels import JsonDict
from optimizer_core.exceptions import SerializationError
from optimizer_core.variables import Snapshot, Variable, restore, snapshot

START_EPOCH = -1
"""The "epoch" of the starting values, when they compete (``fit(validate_start=True)``)."""


class BestEpoch:
    """The best epoch so far by one logged figure, and its variables.

    Args:
        monitor: the log key to maximise (``"val_reward"`` or ``"reward"``).

    Example:
        ```python
        best = BestEpoch("val_reward")
        for epoch in range(epochs):
            logs = ...  # train and validate
            best.consider(epoch, logs, program.trainable_variables)
        best.restore(program.trainable_variables)
        ```
    """

    def __init__(self, monitor: str) -> None:
        self.monitor = monitor
        self.epoch: int | None = None
        self.score = -math.inf
        self.values: Snapshot | None = None

    @property
    def found(self) -> bool:
        """Whether an epoch (or the starting values) was recorded."""
        return self.values is not None

    def improves(self, score: float) -> bool:
        """Whether `score` replaces the best: the first, a higher one, a tie with the start."""
        if self.values is None or score > self.score:
            return True
        return score == self.score and self.epoch == START_EPOCH

    def consider(
        self, epoch: int, logs: Mapping[str, Any], trainable_variables: Sequence[Variable]
    ) -> bool:
        """Record the epoch (its score in `logs`, the variables now) if it is the new best.

        An epoch whose logs lack the monitored figure scores ``-inf``: it is kept
        only when nothing was recorded before it.

        Returns:
            Whether it became the best.
        """
        value = logs.get(self.monitor)
        score = -math.inf if value is None else float(value)
        if not self.improves(score):
            return False
        self.epoch, self.score, self.values = epoch, score, snapshot(trainable_variables)
        return True

    def restore(self, trainable_variables: Sequence[Variable]) -> bool:
        """Put the best epoch's values back in the variables; False when there is none."""
        if self.values is None:
            return False
        restore(trainable_variables, self.values)
        return True

    # Saving ---------------------------------------------------------------------------------

    def to_json(self) -> JsonDict:
        """``{monitor, epoch, score, variables}``; ``score`` None while it is ``-inf``."""
        return {
            "monitor": self.monitor,
            "epoch": self.epoch,
            "score": self.score if math.isfinite(self.score) else None,
            "variables": copy.deepcopy(self.values),
        }

    @classmethod
    def from_json(cls, data: Any, *, monitor: str, current: Snapshot, path: str) -> BestEpoch:
        """Read `to_json`'s output back.

        Args:
            data: the saved object.
            monitor: the figure when the object does not name it (saved before it did).
            current: the values in force, for a record saved without ``variables``
                (before they were always saved, the best epoch's values were left out
                when it was the epoch the checkpoint was saved after).
            path: where `data` sits in its document, for errors.
        """
        if not isinstance(data, dict):
            raise _invalid(path, "expected an object")
        best = cls(str(data.get("monitor") or monitor))
        epoch, score, values = data.get("epoch"), data.get("score"), data.get("variables")
        if epoch is not None and (not isinstance(epoch, int) or isinstance(epoch, bool)):
            raise _invalid(f"{path}.epoch", f"expected an epoch number, got {epoch!r}")
        if score is not None and (not isinstance(score, int | float) or isinstance(score, bool)):
            raise _invalid(f"{path}.score", f"expected a number, got {score!r}")
        if values is not None and not (
            isinstance(values, dict) and all(isinstance(v, dict) for v in values.values())
        ):
            raise _invalid(f"{path}.variables", "expected an object of variable values")
        if epoch is None:
            return best
        best.epoch = epoch
        best.score = -math.inf if score is None else float(score)
        best.values = copy.deepcopy(values) if values else copy.deepcopy(current)
        return best


def _invalid(path: str, reason: str) -> SerializationError:
    return SerializationError(f"{path}: {reason}", path=path, reason=reason)


__all__ = ["START_EPOCH", "BestEpoch", "Snapshot", "restore", "snapshot"]
