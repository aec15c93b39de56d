"""POST /api/providers/{id}/test/: one small call, the answer or the provider's error (never
the key), with the latency."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from studio.providers import crypto, redaction, services
from studio.providers.models import Provider

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

KEY = "studio-test-key-Hq3Nv8Lx2Pd6"  # no known key shape: only the registry can catch it


@pytest.fixture
def seen() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def server(seen, allow_outgoing) -> Iterator[ScriptedServer]:
    def answer(request: dict[str, Any]) -> str:
        seen.append(request)
        return "ok"

    with ScriptedServer(answer) as running:
        allow_outgoing(running)
        yield running


def _provider(owner: Any, server: ScriptedServer, **fields: Any) -> Provider:
    return Provider.objects.create(
        owner=owner,
        name=fields.pop("name", "scripted"),
        model=fields.pop("model", "openai/scripted"),
        api_base=server.base_url,
        **fields,
    )


def test_a_working_provider_answers(api, user, server, seen):
    provider = _provider(user, server)
    response = api.post(f"/api/providers/{provider.pk}/test/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is True and body["error"] is None
    assert body["answer"] == "ok"
    assert 0 <= body["latency_s"] < 30
    (request,) = seen  # one small call
    assert request["max_tokens"] == 16
    assert "ok" in request["messages"][-1]["content"]


def test_an_embedding_provider_embeds_one_word(api, user, server):
    provider = _provider(user, server, model="openai/embedder", kind=Provider.Kind.EMBEDDING)
    body = api.post(f"/api/providers/{provider.pk}/test/").json()
    assert body == {
        "ok": True,
        "answer": "an embedding of 64 dimensions",
        "error": None,
        "latency_s": body["latency_s"],
    }
    assert server.stats.embedding_requests == 1


def test_a_refusal_is_reported_without_the_key(api, user, server, monkeypatch):
    provider = _provider(user, server)
    provider.encrypted_api_key = crypto.encrypt(KEY)
    provider.save()
    # As in a fresh process: only the decrypt of this call teaches the registry the key.
    monkeypatch.setattr(redaction, "_secrets", set())
    monkeypatch.setattr(redaction, "_snapshot", frozenset())
    server.fail_next(status=401, times=10, echo_key=True)

    response = api.post(f"/api/providers/{provider.pk}/test/")

    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is False and body["answer"] is None
    assert "AuthenticationError" in body["error"] and "***" in body["error"]
    assert KEY not in response.content.decode()
    assert server.stats.chat_requests == 1  # no retries


def test_a_silent_provider_is_given_up_on_at_the_time_limit(api, user, server, monkeypatch):
    monkeypatch.setattr(services, "CONNECTION_TIMEOUT_S", 1.0)
    server.stall_next(math.inf, times=10)
    provider = _provider(user, server, params={"timeout": 600, "total_timeout": 900})
    body = api.post(f"/api/providers/{provider.pk}/test/").json()
    assert body["ok"] is False
    assert 0.9 <= body["latency_s"] < 10
    assert "LanguageModelTimeout" in body["error"] and "no answer within 1 s" in body["error"]


def test_a_missing_bundled_model_is_reported(api, user, monkeypatch):
    import optimizer_core.local_models as local_models

    monkeypatch.setattr(local_models, "server_available", lambda: False)
    provider = Provider.objects.create(owner=user, name="local", model="local/smollm2")
    body = api.post(f"/api/providers/{provider.pk}/test/").json()
    assert body["ok"] is False and "not installed" in body["error"]


def test_another_users_provider_is_not_found(other_api, user, server):
    provider = _provider(user, server)
    assert other_api.post(f"/api/providers/{provider.pk}/test/").status_code == 404
    assert server.stats.chat_requests == 0


@pytest.mark.parametrize(
    "model, params",
    [("bedrock/anthropic.claude-v2", {"aws_region_name": "nowhere-1"}), ("openai/gpt-4o-mini", {})],
    ids=["bedrock with a bad region", "openai at an unreachable host"],
)
def test_a_failing_provider_answers_without_a_traceback(api, user, model, params):
    # Stored before the declared settings (bedrock and aws_* are refused at save time now).
    provider = Provider.objects.create(owner=user, name="broken", model=model, params=params)
    response = api.post(f"/api/providers/{provider.pk}/test/")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is False and body["error"], body
    text = response.content.decode()
    for leak in ("Traceback", 'File "', "site-packages", ".py", "litellm==", "/usr/", "/work/"):
        assert leak not in text, text
    assert len(body["error"]) < 400


def test_an_unexpected_failure_is_named_by_its_class_only(api, user, monkeypatch, caplog):
    # An exception from outside the engine's error mapping (a library's, a bug) may carry
    # a traceback, server paths or an upstream body in its text: none of it is shown.
    leaked = 'Traceback (most recent call last):\n  File "/srv/site-packages/x.py"\n<html>UPSTREAM</html>'

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(leaked)

    monkeypatch.setattr(services, "build_language_model", broken)
    provider = Provider.objects.create(owner=user, name="odd", model="openai/gpt-4o-mini")
    response = api.post(f"/api/providers/{provider.pk}/test/")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is False
    assert body["error"].startswith("RuntimeError: the call failed in an unexpected way")
    for leak in ("Traceback", "site-packages", "UPSTREAM", "/srv/"):
        assert leak not in response.content.decode()
    assert "UPSTREAM" in caplog.text  # the server's log keeps the reason
