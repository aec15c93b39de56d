"""A provider's time limits: the engine's defaults, or its own through ``params``."""

from __future__ import annotations

import pytest

from studio.providers import services
from studio.providers.models import Provider

pytestmark = pytest.mark.django_db


def test_a_provider_without_limits_gets_60_s_per_attempt_and_180_s_per_call(api):
    response = api.post(
        "/api/providers/", {"name": "p", "model": "openai/gpt-4o-mini"}, format="json"
    )
    assert response.status_code == 201, response.content
    lm = services.build_language_model(Provider.objects.get(pk=response.json()["id"]))
    assert (lm.timeout, lm.total_timeout) == (60.0, 180.0)


def test_a_provider_sets_its_own_limits_through_params(api):
    params = {"timeout": 300, "total_timeout": 900}  # e.g. a slow reasoning model
    response = api.post(
        "/api/providers/",
        {"name": "slow", "model": "openai/o1", "params": params},
        format="json",
    )
    assert response.status_code == 201, response.content
    lm = services.build_language_model(Provider.objects.get(pk=response.json()["id"]))
    assert (lm.timeout, lm.total_timeout) == (300.0, 900.0)


def test_a_bad_total_timeout_is_refused_naming_the_field(api):
    response = api.post(
        "/api/providers/",
        {"name": "bad", "model": "openai/gpt-4o-mini", "params": {"total_timeout": -5}},
        format="json",
    )
    assert response.status_code == 400
    assert "total_timeout" in response.content.decode()
