"""What `fit` carries from one epoch to the next, saved so that a resumed fit continues it.

A fit's variables and its optimizer's state are saved with the program; what
its loop itself carries between epochs is `FitState`:

- the random generator that orders each epoch's rows and draws each step's
  minibatch (its state at the last epoch end);
- the best epoch so far, with its score and values (`best_epoch.BestEpoch`);
- every epoch's logs, so a resumed fit's `History` holds the whole run;
- the next epoch, and the settings that make a resumed fit the same run
  (`signature`: seed, shuffle, batch and minibatch sizes, row counts).

`fit` records it at each epoch end, before the callbacks run, and keeps it as
the program's ``fit_state``; `Program.to_json` saves it (``fit_state``), so every
checkpoint carries it. A `fit(initial_epoch=k)` on a program saved at the end of
epoch ``k - 1`` continues it (`FitState.begin`) when it runs with the same
signature: the same batches in the same order, the best epoch chosen over the
whole run, and a `History` holding every epoch since 0. Any other fit (a fresh
start, a fork on other data or settings) starts its own.

`callbacks.BackupAndRestore` resumes a killed script from a folder of its own
with this state, the variables and the optimizer's state, all three in the
program's document (`Program.resume_from`); the fit it restores into starts at
the backup's epoch and `begin` decides, as for ``initial_epoch``, whether it
continues this state.
"""

from __future__ import annotations

import copy
import logging
import random
from collections.abc import Mapping
from typing import Any

from optimizer_core.callbacks.history import History
from optimizer_core.datamodels import JsonDict
from optimizer_core.exceptions import SerializationError
from optimizer_core.programs.best_epoch import BestEpoch
from optimizer_core.variables import Snapshot

logger = logging.getLogger("optimizer_core")

RngState = list[Any]
"""`random.Random.getstate()` as JSON: ``[version, [internal...], gauss]``."""


class FitState:
    """The loop state of one fit, as of its last epoch end.

    Args:
        signature: the settings and row counts that make a resumed fit the same run.
        best: the best epoch so far.
        rng_state: the fit's random generator at the last epoch end (None: none ended).
        next_epoch: the epoch a fit continuing this one starts from.
        epochs: each ended epoch as ``{"epoch": n, "logs": {...}}``, in order.
    """

    def __init__(
        self,
        signature: JsonDict,
        best: BestEpoch,
        *,
        rng_state: RngState | None = None,
        next_epoch: int = 0,
        epochs: list[JsonDict] | None = None,
    ) -> None:
        self.signature = dict(signature)
        self.best = best
        self.rng_state = rng_state
        self.next_epoch = next_epoch
        self.epochs: list[JsonDict] = list(epochs or [])

    @classmethod
    def begin(cls, saved: FitState | None, initial_epoch: int, signature: JsonDict) -> FitState:
        """The saved run's state when this fit continues it, else a fresh one.

        Args:
            saved: the program's last fit state (None: none).
            initial_epoch: the epoch this fit starts from.
            signature: this fit's (`EpochIterator.signature`).

        This fit continues the saved run when it starts at the epoch after the one
        the state was saved at, with the same signature.
        """
        if saved is None or initial_epoch <= 0 or saved.next_epoch != initial_epoch:
            return cls(signature, BestEpoch(monitor_of(signature)))
        if saved.signature != signature or saved.rng_state is None:
            logger.info(
                "fit(initial_epoch=%d) does not continue the saved run (it used %s, this fit %s); "
                "starting a new record of the best epoch and history",
                initial_epoch,
                saved.signature,
                signature,
            )
            return cls(signature, BestEpoch(monitor_of(signature)))
        return saved

    def seed(self, rng: random.Random) -> None:
        """Put the saved generator state into `rng` (nothing when no epoch ended)."""
        if self.rng_state is not None:
            version, internal, gauss = self.rng_state
            rng.setstate((version, tuple(internal), gauss))

    def end_epoch(self, epoch: int, logs: Mapping[str, Any], rng: random.Random) -> None:
        """Record an ended epoch: its logs, the generator's state, the next epoch."""
        self.epochs.append({"epoch": epoch, "logs": dict(logs)})
        version, internal, gauss = rng.getstate()
        self.rng_state = [version, list(internal), gauss]
        self.next_epoch = epoch + 1

    def past_epochs(self) -> list[JsonDict]:
        """Each ended epoch's ``{"epoch", "logs"}`` (copies)."""
        return [{"epoch": e["epoch"], "logs": dict(e["logs"])} for e in self.epochs]

    def replay(self, history: History | None) -> None:
        """Give `history` the ended epochs, as an uninterrupted run's would hold them."""
        if history is None:
            return
        for entry in self.epochs:
            history.on_epoch_end(int(entry["epoch"]), dict(entry["logs"]))

    # Saving ---------------------------------------------------------------------------------

    def to_json(self) -> JsonDict:
        """``{next_epoch, signature, rng, best, epochs}``, plain JSON."""
        return {
            "next_epoch": self.next_epoch,
            "signature": dict(self.signature),
            "rng": copy.deepcopy(self.rng_state),
            "best": self.best.to_json(),
            "epochs": copy.deepcopy(self.epochs),
        }

    @classmethod
    def from_json(cls, data: Any, *, current: Snapshot, path: str = "fit_state") -> FitState:
        """Read `to_json`'s output back.

        Args:
            data: the saved object.
            current: the trainable values the program holds now (see `BestEpoch.from_json`).
            path: where `data` sits in its document, for errors.

        Raises:
            SerializationError: a part is not what `to_json` writes; ``path`` says which.
        """
        if not isinstance(data, dict):
            raise _invalid(path, "expected an object")
        signature, rng, epochs = data.get("signature"), data.get("rng"), data.get("epochs") or []
        next_epoch = data.get("next_epoch")
        if not isinstance(next_epoch, int) or isinstance(next_epoch, bool) or next_epoch < 0:
            raise _invalid(f"{path}.next_epoch", f"expected an epoch number, got {next_epoch!r}")
        if not isinstance(signature, dict):
            raise _invalid(f"{path}.signature", "expected an object")
        if rng is not None and not _is_rng_state(rng):
            raise _invalid(
                f"{path}.rng", "expected a random generator state [version, [...], gauss]"
            )
        if not isinstance(epochs, list) or not all(_is_epoch(e) for e in epochs):
            raise _invalid(f"{path}.epochs", 'expected a list of {"epoch": n, "logs": {...}}')
        monitor = monitor_of(signature)
        best = data.get("best")
        return cls(
            signature,
            BestEpoch(monitor)
            if best is None
            else BestEpoch.from_json(best, monitor=monitor, current=current, path=f"{path}.best"),
            rng_state=copy.deepcopy(rng),
            next_epoch=next_epoch,
            epochs=copy.deepcopy(epochs),
        )

    @classmethod
    def from_document(cls, document: JsonDict, *, current: Snapshot) -> FitState | None:
        """The fit state a program document holds (None when it holds none).

        Documents saved before ``fit_state`` had its own key kept it in the
        optimizer's state (``optimizer_state.fit``); both are read.
        """
        if document.get("fit_state") is not None:
            return cls.from_json(document["fit_state"], current=current)
        legacy = document.get("optimizer_state")
        if isinstance(legacy, dict) and legacy.get("fit"):
            return cls.from_json(legacy["fit"], current=current, path="optimizer_state.fit")
        return None


def monitor_of(signature: Mapping[str, Any]) -> str:
    """The figure a fit's best epoch is chosen by: ``val_reward`` with validation rows."""
    rows = signature.get("validation_rows")
    return "val_reward" if isinstance(rows, int) and rows > 0 else "reward"


def _is_rng_state(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[1], list)
        and all(isinstance(item, int) and not isinstance(item, bool) for item in value[1])
    )


def _is_epoch(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("epoch"), int)
        and isinstance(entry.get("logs"), dict)
    )


def _invalid(path: str, reason: str) -> SerializationError:
    return SerializationError(f"{path}: {reason}", path=path, reason=reason)


__all__ = ["FitState", "RngState", "monitor_of"]
