"""The light status of runs: what a table polls while runs train.

A runs table that refetched its whole page every few seconds would read every run's
evaluations again and again to learn that one epoch ended. `run_statuses` answers
only what moves while a run trains (its state, the epoch reached, the LM calls,
tokens and cost so far) and when the row last changed, for the ids asked about. The
table then refetches its page once, when a state changes.

It reads only those columns (one query, whatever the number of ids): never the
evaluations, the documents or the per-row rewards stored beside them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from studio.runs.models import Run

#: The most ids one status read answers (a page of the runs table is 50).
STATUS_IDS_MAX = 100
#: What a status carries of the run's usage (its full usage keeps a concurrency history).
USAGE_KEYS = {"calls": "calls", "tokens": "total_tokens", "cost": "cost"}
_COLUMNS = (
    "id",
    "state",
    "current_epoch",
    "fit_config",
    "usage",
    "created_at",
    "started_at",
    "heartbeat_at",
    "finished_at",
)


def _updated_at(row: dict[str, Any]) -> datetime:
    """The last time the row said something: created, started, heard from or finished."""
    times = [row[f] for f in ("created_at", "started_at", "heartbeat_at", "finished_at")]
    return max(t for t in times if t is not None)


def _progress(row: dict[str, Any]) -> dict[str, Any]:
    fit = row["fit_config"] if isinstance(row["fit_config"], dict) else {}
    usage = row["usage"] if isinstance(row["usage"], dict) else {}
    epochs = fit.get("epochs")
    return {
        "epoch": row["current_epoch"],
        "epochs": epochs if isinstance(epochs, int) else None,
        **{key: usage.get(stored) for key, stored in USAGE_KEYS.items()},
    }


def run_statuses(owner: Any, ids: list[int]) -> list[dict[str, Any]]:
    """``[{id, state, progress: {epoch, epochs, calls, tokens, cost}, updated_at}]``.

    Only the owner's runs among `ids`, in the order of `ids`; an id that is another
    user's or names no run is left out (as if it did not exist).
    """
    rows = {row["id"]: row for row in Run.objects.filter(owner=owner, pk__in=ids).values(*_COLUMNS)}
    return [
        {
            "id": pk,
            "state": rows[pk]["state"],
            "progress": _progress(rows[pk]),
            "updated_at": _updated_at(rows[pk]),
        }
        for pk in dict.fromkeys(ids)
        if pk in rows
    ]
