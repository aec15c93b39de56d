"""CSVLogger: each epoch's logs as a row of a CSV file, written as training goes."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from optimizer_core.callbacks.callback import COMPLETED, Callback, HookResult, Logs

__all__ = ["MISSING_VALUE", "CSVLogger", "epochs_csv", "epochs_csv_columns"]

#: What a cell holds for a key an epoch did not log (pandas reads it as NaN).
MISSING_VALUE = "NA"

EpochRow = tuple[int, Logs]
"""One epoch: its (0-based) number and its logs."""


def epochs_csv_columns(rows: Iterable[EpochRow]) -> list[str]:
    """``["epoch", <every key logged, sorted>]``: the header of `epochs_csv`."""
    keys: set[str] = set()
    for _, logs in rows:
        keys.update(logs)
    keys.discard("epoch")
    return ["epoch", *sorted(keys)]


def _cell(value: Any) -> Any:
    if value is None:
        return MISSING_VALUE
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(str(item) for item in value) + "]"
    return value


def epochs_csv(
    rows: Sequence[EpochRow], *, separator: str = ",", columns: Sequence[str] | None = None
) -> str:
    """The CSV text of some epochs' logs: a header, then one row per epoch.

    The columns are ``epoch`` (0-based, as the hooks see it) and every key any
    epoch logged, sorted; a key an epoch lacks holds ``NA``. A list or array value
    is written as ``"[a, b]"``. The same format as `CSVLogger`'s file, so a run's
    CSV from the studio and one written by a script read alike.

    Args:
        rows: ``(epoch, logs)`` pairs, in order.
        separator: the delimiter (default ``","``).
        columns: the header to use (default: `epochs_csv_columns` of `rows`).
    """
    header = list(columns) if columns is not None else epochs_csv_columns(rows)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=separator, lineterminator="\n")
    writer.writerow(header)
    for epoch, logs in rows:
        values = {**logs, "epoch": epoch}
        writer.writerow([_cell(values.get(key)) for key in header])
    return out.getvalue()


class CSVLogger(Callback):
    """Streams each epoch's logs to a CSV file, one row per epoch.

    The header is ``epoch`` and every logged key, sorted (the reward, each
    metric, their ``val_`` figures, ``failures``...). The file is written at each
    epoch's end and closed again, so it is complete after every epoch, even when
    the script is killed. A key that first appears in a later epoch (``failures``
    is logged only when some prediction failed) widens the header: the file is
    rewritten with the new column, the earlier rows holding ``NA`` there. (The
    reference library keeps the first epoch's columns and fails on a new key.)

    Args:
        filepath: the CSV file, e.g. ``"run/log.csv"``; its folder is created.
        separator: the delimiter (default ``","``).
        append: add to an existing file, after its rows, keeping its header
            (default False: the file is replaced at the start of training).

    Example:
        ```python
        csv_logger = CSVLogger(filepath="training.csv")
        await program.fit(x_train, y_train, epochs=5, callbacks=[csv_logger])
        ```
    """

    def __init__(
        self, filepath: str | os.PathLike[str], *, separator: str = ",", append: bool = False
    ) -> None:
        super().__init__()
        if not isinstance(filepath, str | os.PathLike) or not os.fspath(filepath):
            raise ValueError(f"`filepath` must be a non-empty path, got {filepath!r}")
        if not isinstance(separator, str) or len(separator) != 1:
            raise ValueError(f"`separator` must be one character, got {separator!r}")
        if not isinstance(append, bool):
            raise ValueError(f"`append` must be True or False, got {append!r}")
        self.filepath = os.fspath(filepath)
        self.separator = separator
        self.append = append
        self._rows: list[EpochRow] = []
        self._columns: list[str] = []

    def on_train_begin(self, logs: Logs | None = None) -> HookResult:
        self._rows = self._existing_rows() if self.append else []
        self._columns = epochs_csv_columns(self._rows) if self._rows else []
        folder = os.path.dirname(self.filepath)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if not self.append or not self._rows:
            with open(self.filepath, "w", encoding="utf-8", newline=""):
                pass
        return COMPLETED

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> HookResult:
        row: EpochRow = (epoch, dict(logs or {}))
        self._rows.append(row)
        columns = epochs_csv_columns([row])
        if not self._columns or not set(columns) <= set(self._columns):
            # A new key (or the first row): write the file whole with the wider header.
            self._columns = sorted(set(self._columns) | set(columns), key=_column_order)
            text = epochs_csv(self._rows, separator=self.separator, columns=self._columns)
            with open(self.filepath, "w", encoding="utf-8", newline="") as file:
                file.write(text)
        else:
            text = epochs_csv([row], separator=self.separator, columns=self._columns)
            with open(self.filepath, "a", encoding="utf-8", newline="") as file:
                file.write(text.split("\n", 1)[1])
        return COMPLETED

    def _existing_rows(self) -> list[EpochRow]:
        """The rows of the file to append to (none when it is missing or empty)."""
        if not os.path.isfile(self.filepath):
            return []
        with open(self.filepath, encoding="utf-8", newline="") as file:
            reader = csv.DictReader(file, delimiter=self.separator)
            rows: list[EpochRow] = []
            for record in reader:
                epoch = int(record.pop("epoch", 0) or 0)
                rows.append((epoch, {k: _parsed(v) for k, v in record.items() if k}))
        return rows

    def get_config(self) -> dict[str, Any]:
        return {"filepath": self.filepath, "separator": self.separator, "append": self.append}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> CSVLogger:
        return cls(**config)

    def __repr__(self) -> str:
        return f"CSVLogger(filepath={self.filepath!r})"


def _column_order(column: str) -> tuple[int, str]:
    return (0 if column == "epoch" else 1, column)


def _parsed(value: str | None) -> Any:
    """A cell read back as written (a rewrite copies it unchanged); None for ``NA``."""
    return None if value is None or value == MISSING_VALUE else value
