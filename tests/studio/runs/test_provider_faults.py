"""Providers that misbehave: one that echoes the key, one that never answers.

A run against a provider that echoes the API key in its 401 leaves the key in
no log line, event, error text or API response. A run waiting on a provider
that accepts requests and never answers is cancelled within seconds, and
without a cancel fails at the call's total timeout, naming the provider.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import math
import time
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from optimizer_core.testing.scripted_server import ScriptedServer
from studio.common import lifecycle
from studio.providers import crypto, redaction
from studio.providers.redaction import RedactSecretsFilter
from studio.runs import services
from studio.runs.models import Run, RunEvent
from studio.runs.training import execute_run, train_claimed_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

# No known key shape (sk-..., Bearer ...): only the registry of keys in use can catch it.
KEY = "studio-live-key-7Qz2Wm9Xc4Vb8Nn1"
FIT = {"epochs": 1, "batch_size": 8, "evaluations": 1, "seed": 0}


def start(user: Any, provider: Any) -> Run:
    return services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=provider,
        compile_config=COMPILE_CONFIG,
        fit_config=FIT,
    )


def events(run: Run) -> list[RunEvent]:
    return list(RunEvent.objects.filter(run=run).order_by("seq"))


@pytest.fixture
def studio_log(capsys) -> Iterator[io.StringIO]:
    """All the studio writes to its logs during the test, at DEBUG level.

    The root handler settings.LOGGING made (the one with the redaction filter) is
    pointed at a buffer; litellm's own handler writes to sys.stdout / sys.stderr,
    which capsys holds. Everything (django, celery, litellm, the engine) reaches
    one or the other.
    """
    buffer = io.StringIO()
    root = logging.getLogger()
    handlers = [
        h
        for h in root.handlers
        if isinstance(h, logging.StreamHandler)
        and any(isinstance(f, RedactSecretsFilter) for f in h.filters)
    ]
    assert handlers, "settings.LOGGING puts the redaction filter on the root handler"
    streams = [(h, h.setStream(buffer)) for h in handlers]
    levels = {name: logging.getLogger(name).level for name in ("", "django", "celery", "LiteLLM")}
    for name in levels:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield buffer
    finally:
        for handler, stream in streams:
            handler.setStream(stream)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        captured = capsys.readouterr()
        buffer.write(captured.out + captured.err)


def test_a_key_the_provider_echoes_reaches_no_log_event_error_or_response(
    user, api, scripted_server, studio_log, monkeypatch, capsys
):
    scripted_server.fail_next(status=401, times=10_000, echo_key=True)
    provider = make_provider(user, scripted_server.base_url)
    provider.encrypted_api_key = crypto.encrypt(KEY)
    provider.save()
    # Only the worker's decrypt may teach the registry the key, as in a real worker.
    monkeypatch.setattr(redaction, "_secrets", set())
    monkeypatch.setattr(redaction, "_snapshot", frozenset())
    run = start(user, provider)

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert "AuthenticationError" in run.error and "Incorrect API key provided: ***" in run.error
    captured = capsys.readouterr()
    logged = studio_log.getvalue() + captured.out + captured.err
    assert f"run {run.pk} failed" in logged and "Traceback" in logged  # the capture works
    assert "The above exception was the direct cause" in logged  # the chain was printed
    payloads = json.dumps([e.payload for e in events(run)])
    responses = [
        api.get(f"/api/runs/{run.pk}/"),
        api.get(f"/api/runs/{run.pk}/events/"),
        api.get("/api/runs/"),
        api.get(f"/api/providers/{provider.pk}/"),
    ]
    assert all(r.status_code == 200 for r in responses), [r.status_code for r in responses]
    served = " ".join(r.content.decode() for r in responses)
    assert scripted_server.stats.chat_requests > 0
    for where, text in [
        ("log", logged),
        ("events", payloads),
        ("error", run.error),
        ("usage", json.dumps(run.usage)),
        ("API", served),
    ]:
        assert KEY not in text, f"the key is in the {where}"


def silent_provider(user: Any, server: ScriptedServer, **params: Any) -> Any:
    """A provider whose requests are accepted and never answered."""
    server.stall_next(math.inf, times=100_000)
    return make_provider(user, server.base_url, **params)


@pytest.mark.timeout(120)
def test_cancel_stops_a_run_waiting_on_a_silent_provider_within_seconds(user, scripted_server):
    # The engine's defaults: each call would wait up to 60 s per attempt, 180 s in all.
    provider = silent_provider(
        user, scripted_server, timeout=60, total_timeout=180, max_retries=5, backoff_base=0.5
    )
    run = start(user, provider)
    assert services.claim_run(run.pk)

    async def cancel_once_calls_hang() -> float:
        for _ in range(1200):  # the server runs in its own thread: poll its counter
            if scripted_server.stats.in_flight >= 1:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # the calls are truly waiting now
        cancelled_at = time.perf_counter()
        await sync_to_async(lambda: services.cancel_run(Run.objects.get(pk=run.pk)))()
        return cancelled_at

    async def scenario() -> float:
        cancelled_at, _ = await asyncio.gather(cancel_once_calls_hang(), train_claimed_run(run.pk))
        return time.perf_counter() - cancelled_at

    took = async_to_sync(scenario)()

    run.refresh_from_db()
    assert run.state == Run.State.CANCELLED
    assert took < 10, f"the cancel took {took:.1f} s"  # the bar; ~1 s expected
    kinds = [e.kind for e in events(run)]
    assert kinds[0] == "state" and "cancel_requested" in kinds
    assert events(run)[-1].payload == {"state": "cancelled"}
    assert [e.seq for e in events(run)] == list(range(1, len(kinds) + 1))
    assert run.usage["calls"] >= 1  # the abandoned calls are accounted


def test_a_silent_provider_fails_the_run_at_the_total_timeout_naming_it(user, scripted_server):
    provider = silent_provider(
        user, scripted_server, timeout=0.3, total_timeout=0.8, max_retries=5, backoff_base=0.05
    )
    run = start(user, provider)

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert run.error.startswith(f"LanguageModelTimeout: provider {provider.name!r}: "), run.error
    assert "'openai/scripted' did not answer within 0.8 s" in run.error
    # It failed in the first evaluation batch, without waiting out each remaining one.
    kinds = [e.kind for e in events(run)]
    assert "evaluation" not in kinds and "batch" not in kinds
    assert "error" in kinds


def test_the_cancel_poll_is_short_and_the_heartbeat_keeps_its_pace(settings):
    assert lifecycle.CANCEL_POLL_S <= 1.0
    assert lifecycle.heartbeat_interval() == settings.STUDIO_RUN_HEARTBEAT_S
