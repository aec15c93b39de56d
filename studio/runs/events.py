"""The single event path of a run: a `RunEvent` row first, then a channel-layer message.

Every event is written with the next ``seq`` of its run (1, 2, 3... with no gap)
inside one transaction, and only then sent on the run's group. A client that
misses a live message (it connected late, the layer dropped it, the socket
reconnected) reads the rows after its last ``seq``, so the stored history and the
live stream never disagree.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Max

from studio.runs.groups import RUN_EVENT_TYPE, run_group
from studio.runs.models import Run, RunEvent

logger = logging.getLogger(__name__)

_SEQ_RETRIES = 20


def event_message(event: RunEvent) -> dict[str, Any]:
    """The JSON a client receives for a stored event (also the channel-layer message)."""
    return {
        "type": RUN_EVENT_TYPE,
        "run": event.run_id,
        "seq": event.seq,
        "kind": event.kind,
        "payload": event.payload,
        "ts": event.created_at.timestamp(),  # write time, seconds since the epoch
    }


def record_event(run_id: int, kind: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store one event with the run's next seq and return its message.

    The run row is locked (``select_for_update``, a no-op on SQLite, where the
    write lock serialises writers instead); the unique (run, seq) constraint
    plus a retry covers any writer that slips past the lock.
    """
    body = dict(payload or {})
    for attempt in range(_SEQ_RETRIES):
        try:
            with transaction.atomic():
                Run.objects.select_for_update().filter(pk=run_id).values_list("pk").get()
                last = RunEvent.objects.filter(run_id=run_id).aggregate(last=Max("seq"))["last"]
                event = RunEvent.objects.create(
                    run_id=run_id, seq=(last or 0) + 1, kind=kind, payload=body
                )
            return event_message(event)
        except IntegrityError:
            continue  # another writer took this seq: read the max again
        except OperationalError as error:
            # SQLite (embedded mode) answers "database is locked" when two processes
            # upgrade to a write at once; wait a little and try again.
            if "locked" not in str(error) or transaction.get_connection().in_atomic_block:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise RuntimeError(f"could not allocate an event seq for run {run_id}")


async def publish(message: dict[str, Any]) -> None:
    """Send a stored event's message on its run's group; a layer failure is only logged."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(run_group(message["run"]), message)
    except Exception:
        # The row is stored: clients catch up from the table.
        logger.warning("channel layer send failed for run %s", message["run"], exc_info=True)


async def emit(run_id: int, kind: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store then send one event (from async code)."""
    message = await sync_to_async(record_event)(run_id, kind, payload)
    await publish(message)
    return message


def emit_sync(run_id: int, kind: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store then send one event (from sync code: services, views, the sweep)."""
    message = record_event(run_id, kind, payload)
    # Inside a transaction, send only once the row is visible to readers.
    transaction.on_commit(lambda: async_to_sync(publish)(message))
    return message
