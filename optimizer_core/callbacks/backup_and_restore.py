"""Back a fit up as it goes, so that a script killed mid-run goes on where it stopped."""

from __future__ import annotations

import json
import os
import shutil
import warnings
from typing import Any

from optimizer_core.callbacks.callback import COMPLETED, Callback, HookResult, Logs
from optimizer_core.exceptions import SerializationError

LATEST = "latest.json"
"""The backup file in `backup_dir`: the program document with a ``backup`` entry."""
PREVIOUS = "previous.json"
"""The backup before it, kept with ``double_checkpoint``."""


class BackupAndRestore(Callback):
    """Backs the training state up in `backup_dir` and puts it back when `fit` starts again.

    At each epoch's end (or every `save_freq` training batches) it writes one
    file, ``<backup_dir>/latest.json``: the program's document (variables,
    optimizer state and the fit's loop state, what `Program.save` writes) and
    the position reached, ``{"epoch": the next epoch, "batch": the last batch
    seen}``. Each backup replaces the one before; the file is written whole
    and then moved into place, so a kill while writing leaves the last backup.

    When `fit` starts and the file is there (a run stopped before it ended:
    the script was killed, or a callback raised), it loads that state into the
    program and the fit runs from the epoch after the last backed-up one: a
    fit of 4 epochs interrupted during epoch 3 (0-based 2) runs epochs 2 and
    3 only, and its `History` holds those. A backup made every few batches
    goes back to the start of the epoch it was made in, with the variables
    it had reached. With the same data and `fit` settings the run goes on as
    the uninterrupted one would have (the same batches, the best epoch chosen
    over the whole run; see `Trainer.fit`). The program must be built the same
    way as the one backed up; a file that cannot be read or does not fit the
    program raises a `SerializationError` naming the file.

    When `fit` ends (all its epochs run, or stopped by ``stop_training``) the
    backup is deleted (with `delete_checkpoint`), and `backup_dir` with it
    when nothing else is left there. A run that raises keeps it.

    Its hooks are plain methods that return an awaitable, so both
    ``backup.on_epoch_end(epoch, logs)`` and ``await backup.on_epoch_end(...)``
    work (the reference library's callbacks are called plainly).

    Args:
        backup_dir: the folder the backup is written to (created when missing).
            Give each run a folder of its own: a second run using it would
            resume the first.
        save_freq: ``"epoch"`` (default) backs up at each epoch's end; a
            positive integer ``n`` every ``n`` training batches instead.
        double_checkpoint: keep the backup before the latest too
            (``previous.json``); when the latest cannot be read, the previous
            one is put back, with a warning (default False).
        delete_checkpoint: delete the backup when `fit` ends (default True);
            False keeps it.

    Example:
        ```python
        backup = BackupAndRestore(backup_dir="runs/backup")
        history = await program.fit(x=x, y=y, epochs=10, callbacks=[backup])
        # Killed at epoch 4? The same script, run again, trains epochs 4 to 9.
        ```
    """

    def __init__(
        self,
        backup_dir: str | os.PathLike[str],
        save_freq: str | int = "epoch",
        double_checkpoint: bool = False,
        delete_checkpoint: bool = True,
    ) -> None:
        super().__init__()
        if not backup_dir or not isinstance(backup_dir, (str, os.PathLike)):
            raise ValueError(f"`backup_dir` must be a non-empty path, got {backup_dir!r}")
        if save_freq != "epoch" and (
            isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1
        ):
            raise ValueError(
                f"`save_freq` must be 'epoch' or a positive integer, got {save_freq!r}"
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._latest = os.path.join(self.backup_dir, LATEST)
        self._previous = os.path.join(self.backup_dir, PREVIOUS)
        self._epoch = 0
        self._batch = 0
        self._batches_since_save = 0

    def on_train_begin(self, logs: Logs | None = None) -> HookResult:
        self._epoch, self._batch, self._batches_since_save = 0, 0, 0
        if self.program is None or not os.path.exists(self._latest):
            return COMPLETED
        try:
            self._restore(self._latest)
        except SerializationError as error:
            if not (self.double_checkpoint and os.path.exists(self._previous)):
                raise
            warnings.warn(
                f"BackupAndRestore: {error}; restoring the previous backup {self._previous}",
                UserWarning,
                stacklevel=2,
            )
            self._restore(self._previous)
        return COMPLETED

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> HookResult:
        self._epoch = epoch
        return COMPLETED

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        self._batch = batch
        if self.save_freq == "epoch":
            return COMPLETED
        self._batches_since_save += 1
        if self._batches_since_save >= int(self.save_freq):
            self._batches_since_save = 0
            self._save(epoch=self._epoch, batch=batch)
        return COMPLETED

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> HookResult:
        self._epoch = epoch + 1
        if self.save_freq == "epoch":
            self._save(epoch=epoch + 1, batch=self._batch)
        return COMPLETED

    def on_train_end(self, logs: Logs | None = None) -> HookResult:
        if self.delete_checkpoint:
            for path in (self._latest, self._previous):
                if os.path.exists(path):
                    os.remove(path)
            if os.path.isdir(self.backup_dir) and not os.listdir(self.backup_dir):
                os.rmdir(self.backup_dir)
        return COMPLETED

    # The file -------------------------------------------------------------------------------

    def _save(self, *, epoch: int, batch: int) -> None:
        """Write the program's document and the position to `LATEST`, whole or not at all."""
        if self.program is None:
            return
        document = dict(self.program.to_json())
        document["backup"] = {"epoch": epoch, "batch": batch}
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self._latest):
            # A copy, not a move: the latest backup stays in place until replaced.
            shutil.copyfile(self._latest, self._previous)
        pending = f"{self._latest}.tmp{os.getpid()}"
        with open(pending, "w", encoding="utf-8") as handle:
            json.dump(document, handle, ensure_ascii=False)
        os.replace(pending, self._latest)

    def _restore(self, path: str) -> None:
        """Load the backup at `path` into the program (`Program.resume_from`)."""
        try:
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise _unusable(path, f"cannot be read ({error})") from error
        if not isinstance(document, dict):
            raise _unusable(path, "does not hold a JSON object")
        position = document.pop("backup", None)
        epoch = position.get("epoch") if isinstance(position, dict) else None
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
            raise _unusable(path, 'has no "backup": {"epoch": n} entry')
        try:
            self.program.resume_from(document, epoch=epoch)
        except SerializationError as error:
            raise _unusable(path, f"does not fit the program: {error}", error.path) from error

    def get_config(self) -> dict[str, Any]:
        return {
            "backup_dir": self.backup_dir,
            "save_freq": self.save_freq,
            "double_checkpoint": self.double_checkpoint,
            "delete_checkpoint": self.delete_checkpoint,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> BackupAndRestore:
        return cls(**config)

    def __repr__(self) -> str:
        return f"BackupAndRestore(backup_dir={self.backup_dir!r}, save_freq={self.save_freq!r})"


def _unusable(path: str, reason: str, where: str = "") -> SerializationError:
    """The error for an unusable backup file: the file in the message, `where` in it as path."""
    return SerializationError(f"backup {path} {reason}", path=where, reason=reason)
