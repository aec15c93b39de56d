"""The run websocket: ownership before joining, replay then live, each seq once and in order."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from studio.realtime.routing import websocket_urlpatterns
from studio.runs.events import RUN_EVENTS
from studio.runs.models import Run, RunEvent
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = pytest.mark.django_db(transaction=True)

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@database_sync_to_async
def make_run(owner: Any) -> Run:
    return Run.objects.create(
        owner=owner,
        program_version=make_version(owner),
        dataset=make_dataset(owner),
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
    )


@database_sync_to_async
def store(run: Run, n: int) -> list[dict[str, Any]]:
    return [RUN_EVENTS.record(run.pk, "batch", {"batch": i}) for i in range(n)]


def communicator(run: Run, user: Any, query: str = "") -> WebsocketCommunicator:
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/runs/{run.pk}/{query}")
    comm.scope["user"] = user
    return comm


async def receive_events(comm: WebsocketCommunicator, count: int) -> list[dict[str, Any]]:
    received = []
    while len(received) < count:
        message = await comm.receive_json_from(timeout=5)
        if message["type"] == "event":
            received.append(message)
    return received


async def test_replays_stored_events_after_the_given_seq_then_streams_live_ones(user):
    run = await make_run(user)
    await store(run, 3)
    comm = communicator(run, user, "?after=1")
    connected, _ = await comm.connect()
    assert connected
    replay = [await comm.receive_json_from(timeout=5) for _ in range(3)]
    assert [m.get("seq") for m in replay[:2]] == [2, 3]
    assert replay[2] == {"type": "replayed", "last_seq": 3}
    assert replay[0]["kind"] == "batch" and replay[0]["payload"] == {"batch": 1}

    # Written by "another process": the embedded layer finds it in the table.
    await database_sync_to_async(RUN_EVENTS.emit_sync)(run.pk, "epoch", {"epoch": 0})
    live = await comm.receive_json_from(timeout=5)
    assert (live["seq"], live["kind"], live["payload"]) == (4, "epoch", {"epoch": 0})
    assert isinstance(live["ts"], float)
    assert await comm.receive_nothing(timeout=0.2)
    await comm.disconnect()


async def test_another_users_run_is_not_found_and_nobody_signed_in_is_forbidden(user, other_user):
    run = await make_run(user)
    await store(run, 2)
    for who, code in ((other_user, 4404), (AnonymousUser(), 4403)):
        comm = communicator(run, who)
        connected, _ = await comm.connect()
        assert connected
        if code == 4403:  # no session: the first message must sign in, and does not
            await comm.send_json_to({"type": "auth", "token": "wrong"})
        closed = await comm.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": code}
        await comm.wait()
    assert not get_channel_layer().groups.get(RUN_EVENTS.group(run.pk))  # never joined the group


async def test_a_missing_run_is_not_found(user):
    run = await make_run(user)
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/runs/{run.pk + 99}/")
    comm.scope["user"] = user
    await comm.connect()
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}


async def test_live_duplicates_are_dropped_and_a_lost_message_is_fetched(user, settings):
    settings.CHANNEL_LAYERS = IN_MEMORY
    layer = get_channel_layer()
    run = await make_run(user)
    first = await store(run, 2)
    comm = communicator(run, user)
    await comm.connect()
    assert [m["seq"] for m in await receive_events(comm, 2)] == [1, 2]
    assert (await comm.receive_json_from(timeout=5))["type"] == "replayed"

    # A message the replay already covered arrives late: dropped.
    await layer.group_send(RUN_EVENTS.group(run.pk), first[1])
    assert await comm.receive_nothing(timeout=0.2)
    # Events 3 and 4 are stored but only 4's message arrives: 3 comes from the table first.
    _, fourth = await store(run, 2)
    await layer.group_send(RUN_EVENTS.group(run.pk), fourth)
    assert [m["seq"] for m in await receive_events(comm, 2)] == [3, 4]
    # And 4 delivered again is dropped too.
    await layer.group_send(RUN_EVENTS.group(run.pk), fourth)
    assert await comm.receive_nothing(timeout=0.2)
    await comm.disconnect()


async def test_many_events_stream_in_order_without_gaps_through_the_embedded_layer(user):
    run = await make_run(user)
    comm = communicator(run, user)
    await comm.connect()
    assert (await comm.receive_json_from(timeout=5))["type"] == "replayed"
    await store(run, 1200)  # more than one poll batch
    seqs = [m["seq"] for m in await receive_events(comm, 1200)]
    assert seqs == list(range(1, 1201))
    await comm.disconnect()
    assert await database_sync_to_async(RunEvent.objects.filter(run=run).count)() == 1200


def test_an_event_message_carries_what_the_client_needs(user):
    run = Run.objects.create(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        compile_config=COMPILE_CONFIG,
        fit_config={},
    )
    message = RUN_EVENTS.record(run.pk, "state", {"state": "queued"})
    event = RunEvent.objects.get(run=run, seq=1)
    assert message == RUN_EVENTS.message(event)
    assert message["type"] == "run.event" and message["run"] == run.pk


async def _token(user: Any) -> str:
    from rest_framework.authtoken.models import Token

    return (await database_sync_to_async(Token.objects.create)(user=user)).key


async def test_a_token_in_the_first_message_signs_the_socket_in_before_anything_is_sent(user):
    run = await make_run(user)
    await store(run, 2)
    key = await _token(user)
    comm = communicator(run, AnonymousUser(), "?after=1")
    await comm.connect()
    assert await comm.receive_nothing(timeout=0.2)  # nothing replayed before the auth
    await comm.send_json_to({"type": "auth", "token": key})
    assert (await comm.receive_json_from(timeout=5))["seq"] == 2
    assert await comm.receive_json_from(timeout=5) == {"type": "replayed", "last_seq": 2}
    await comm.send_json_to({"type": "auth", "token": "ignored once signed in"})
    assert await comm.receive_nothing(timeout=0.2)
    await comm.disconnect()


@pytest.mark.parametrize(
    "first",
    [
        {"type": "auth", "token": "wrong"},
        {"type": "auth", "token": None},
        {"type": "auth"},
        {"type": "hello"},
        ["auth"],
        "not json {",
        b"\x00binary",
        "[" * 10_000,
    ],
)
async def test_a_first_message_that_does_not_sign_in_closes_the_socket(user, first):
    run = await make_run(user)
    comm = communicator(run, AnonymousUser())
    await comm.connect()
    if isinstance(first, bytes):
        await comm.send_to(bytes_data=first)
    elif isinstance(first, str):
        await comm.send_to(text_data=first)
    else:
        await comm.send_json_to(first)
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}


async def test_a_token_in_the_query_string_is_not_read(user, monkeypatch):
    from studio.realtime import consumers
    from studio.realtime.auth import TokenAuthMiddleware

    monkeypatch.setattr(consumers, "AUTH_TIMEOUT_S", 0.2)
    run = await make_run(user)
    key = await _token(user)
    app = TokenAuthMiddleware(URLRouter(websocket_urlpatterns))
    comm = WebsocketCommunicator(app, f"/ws/runs/{run.pk}/?token={key}")
    comm.scope["user"] = AnonymousUser()
    await comm.connect()
    # Signed in by nothing: after the auth deadline, closed as forbidden.
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}


async def test_an_authorization_header_signs_the_socket_in(user):
    from studio.realtime.auth import TokenAuthMiddleware

    run = await make_run(user)
    key = await _token(user)
    app = TokenAuthMiddleware(URLRouter(websocket_urlpatterns))
    for header, first in (
        (f"Token {key}", {"type": "replayed", "last_seq": 0}),
        ("Token no", None),
    ):
        comm = WebsocketCommunicator(
            app, f"/ws/runs/{run.pk}/", headers=[(b"authorization", header.encode())]
        )
        comm.scope["user"] = AnonymousUser()
        await comm.connect()
        if first is not None:
            assert await comm.receive_json_from(timeout=5) == first
            await comm.disconnect()
        else:  # a wrong header is no sign-in: the first message is then the way
            await comm.send_json_to({"type": "auth", "token": "no"})
            assert await comm.receive_output(timeout=5) == {
                "type": "websocket.close",
                "code": 4403,
            }
