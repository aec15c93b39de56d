"""A provider saved without a key is called without one: never with the server's own keys.

The stand-in records the headers of every request it gets.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from studio.providers import keys
from studio.providers.models import Provider
from studio.providers.services import create_provider

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

SERVER_KEY = "sk-server-own-key-do-not-send-0123456789"


@pytest.fixture
def recorder(allow_outgoing) -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        allow_outgoing(server)
        yield server


def _sent(server: ScriptedServer) -> list[dict[str, str]]:
    return [{k.lower(): v for k, v in headers.items()} for headers in server.stats.headers]


def test_no_key_of_its_own_means_no_key_from_the_environment(api, user, recorder, monkeypatch):
    # The server's environment holds keys after the start (the start took them out).
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.setenv("HOSTED_VLLM_API_KEY", SERVER_KEY)
    for model in ["openai/scripted", "hosted_vllm/scripted"]:
        provider = create_provider(owner=user, name=model, model=model, api_base=recorder.base_url)
        response = api.post(f"/api/providers/{provider.pk}/test/")
        assert response.status_code == 200 and response.json()["ok"], response.content
    sent = _sent(recorder)
    assert len(sent) == 2
    for headers in sent:
        assert SERVER_KEY not in str(headers)
        assert headers.get("authorization") == "Bearer sk-no-key-required"


def test_a_providers_own_key_is_the_one_sent(api, user, recorder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    provider = create_provider(
        owner=user, name="mine", model="openai/scripted", api_base=recorder.base_url,
        api_key="sk-users-own-key-abcdefghijklmnop",
    )  # fmt: skip
    api.post(f"/api/providers/{provider.pk}/test/")
    [headers] = _sent(recorder)
    assert headers["authorization"] == "Bearer sk-users-own-key-abcdefghijklmnop"


def test_the_start_takes_provider_credentials_out_of_the_environment() -> None:
    environ = {
        "OPENAI_API_KEY": SERVER_KEY,
        "OPENAI_ORGANIZATION": "org-server",
        "ANTHROPIC_API_KEY": SERVER_KEY,
        "AWS_SECRET_ACCESS_KEY": "aws-secret",
        "STUDIO_ENCRYPTION_KEY": "stays",
        "DJANGO_SECRET_KEY": "stays",
        "OPENAI_BASE_URL": "https://proxy.example/v1",
        "PATH": "/usr/bin",
    }
    removed = keys.scrub_environment({}, environ)
    assert sorted(removed) == [
        "ANTHROPIC_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "OPENAI_API_KEY",
        "OPENAI_ORGANIZATION",
    ]
    assert environ == {
        "STUDIO_ENCRYPTION_KEY": "stays",
        "DJANGO_SECRET_KEY": "stays",
        "OPENAI_BASE_URL": "https://proxy.example/v1",
        "PATH": "/usr/bin",
    }


def test_a_granted_key_goes_to_the_providers_own_endpoint_only(api, user, recorder, monkeypatch):
    monkeypatch.setattr(keys, "_granted", {})
    keys.scrub_environment(
        keys.parse_grants(["openai=OPENAI_API_KEY"]), {"OPENAI_API_KEY": SERVER_KEY}
    )
    # The provider's own endpoint, here the administrator's OPENAI_BASE_URL.
    monkeypatch.setenv("OPENAI_BASE_URL", recorder.base_url)
    official = Provider.objects.create(owner=user, name="official", model="openai/scripted")
    elsewhere = create_provider(
        owner=user, name="elsewhere", model="openai/scripted", api_base=recorder.base_url
    )
    api.post(f"/api/providers/{official.pk}/test/")
    api.post(f"/api/providers/{elsewhere.pk}/test/")
    granted, typed = _sent(recorder)
    assert granted["authorization"] == f"Bearer {SERVER_KEY}"
    assert SERVER_KEY not in str(typed)
