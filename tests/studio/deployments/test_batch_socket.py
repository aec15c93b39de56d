"""A batch job's progress on the websocket: the run consumer and embedded layer serve it too."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from studio.deployments import services
from studio.deployments.batch import start_batch
from studio.deployments.events import BATCH_EVENTS
from studio.deployments.models import BatchJob
from studio.realtime.routing import websocket_urlpatterns
from tests.studio.deployments.factories import make_dataset, make_provider, make_run

pytestmark = pytest.mark.django_db(transaction=True)

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@database_sync_to_async
def make_job(owner: Any) -> BatchJob:
    run = make_run(owner, make_provider(owner, "http://provider.invalid/v1"))
    deployment = services.deploy(owner=owner, name="cap", run=run)
    return start_batch(deployment, dataset=make_dataset(owner, rows=4))


def communicator(job: BatchJob, user: Any, query: str = "") -> WebsocketCommunicator:
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/batches/{job.pk}/{query}")
    comm.scope["user"] = user
    return comm


async def test_progress_is_replayed_then_streamed_live_in_seq_order(user):
    job = await make_job(user)  # its "queued" state event is stored: seq 1
    progress = {"processed": 2, "total": 4, "failures": 0}
    await database_sync_to_async(BATCH_EVENTS.record)(job.pk, "progress", progress)
    comm = communicator(job, user)
    assert (await comm.connect())[0]
    first, second, replayed = [await comm.receive_json_from(timeout=5) for _ in range(3)]
    assert (first["batch"], first["seq"], first["kind"]) == (job.pk, 1, "state")
    assert (second["seq"], second["payload"]) == (2, progress)
    assert replayed == {"type": "replayed", "last_seq": 2}

    # Written by "the worker": the embedded layer finds the row in the BatchEvent table.
    done = {"processed": 4, "total": 4, "failures": 0}
    await database_sync_to_async(BATCH_EVENTS.emit_sync)(job.pk, "progress", done)
    live = await comm.receive_json_from(timeout=5)
    assert (live["type"], live["batch"], live["seq"], live["payload"]) == ("event", job.pk, 3, done)
    assert "run" not in live
    await comm.disconnect()


async def test_live_messages_travel_on_the_jobs_group_through_a_real_layer(user, settings):
    settings.CHANNEL_LAYERS = IN_MEMORY
    job = await make_job(user)
    comm = communicator(job, user, "?after=1")
    await comm.connect()
    assert await comm.receive_json_from(timeout=5) == {"type": "replayed", "last_seq": 1}
    message = await database_sync_to_async(BATCH_EVENTS.record)(
        job.pk, "progress", {"processed": 1}
    )
    await BATCH_EVENTS.publish(message)
    live = await comm.receive_json_from(timeout=5)
    assert (live["seq"], live["kind"]) == (2, "progress")
    await comm.disconnect()


async def test_another_users_job_is_not_found(user, other_user):
    job = await make_job(user)
    comm = communicator(job, other_user)
    await comm.connect()
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
    await comm.wait()
    assert not get_channel_layer().groups.get(BATCH_EVENTS.group(job.pk))
