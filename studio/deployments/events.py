"""A batch job's progress: a `BatchEvent` row first, then a channel-layer message.

Choice: batch jobs publish exactly as runs do (`studio.runs.events`), in a table
of their own with the same shape, ``(job, seq, kind, payload, created_at)``, and
on a group of their own (``batch_<id>``). The realtime app serves every such
log through one consumer and one embedded layer (`studio.realtime.streams`
lists them), so a batch job gets replay-then-live, reconnect after ``seq``, and
cross-process delivery without a server, for free. Why not rows in `RunEvent`:
a batch job is no run (no epochs, no training state), and a nullable second
parent would make every run query care. Why not a generic event table for
every kind of object: the runs' table is the hot path of training and is
owned by the runs app; two tables of one shape cost nothing.

Events (``kind``: payload): ``state`` ({state, error?}), ``progress``
({processed, total, failures}), ``usage`` (the job's LM usage so far).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Max

from studio.deployments.groups import BATCH_EVENT_TYPE, batch_group
from studio.deployments.models import BatchEvent, BatchJob

logger = logging.getLogger(__name__)

_SEQ_RETRIES = 20


def event_message(event: BatchEvent) -> dict[str, Any]:
    """The JSON a client receives for a stored event (also the channel-layer message)."""
    return {
        "type": BATCH_EVENT_TYPE,
        "batch": event.job_id,
        "seq": event.seq,
        "kind": event.kind,
        "payload": event.payload,
        "ts": event.created_at.timestamp(),
    }


def record_event(job_id: int, kind: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store one event with the job's next seq (no gap) and return its message."""
    body = dict(payload or {})
    for attempt in range(_SEQ_RETRIES):
        try:
            with transaction.atomic():
                BatchJob.objects.select_for_update().filter(pk=job_id).values_list("pk").get()
                last = BatchEvent.objects.filter(job_id=job_id).aggregate(last=Max("seq"))["last"]
                event = BatchEvent.objects.create(
                    job_id=job_id, seq=(last or 0) + 1, kind=kind, payload=body
                )
            return event_message(event)
        except IntegrityError:
            continue
        except OperationalError as error:
            if "locked" not in str(error) or transaction.get_connection().in_atomic_block:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise RuntimeError(f"could not allocate an event seq for batch job {job_id}")


async def publish(message: dict[str, Any]) -> None:
    """Send a stored event's message on its job's group; a layer failure is only logged."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(batch_group(message["batch"]), message)
    except Exception:
        logger.warning("channel layer send failed for batch %s", message["batch"], exc_info=True)


def emit(job_id: int, kind: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store then send one event (sync code: the task, services)."""
    message = record_event(job_id, kind, payload)
    transaction.on_commit(lambda: async_to_sync(publish)(message))
    return message
