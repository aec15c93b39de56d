"""Fixtures shared by the studio's tests: two users and their API clients, and the
administrator's allow-list for stand-in providers on loopback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("ada", "ada@example.com", "correct horse battery")


@pytest.fixture
def other_user(db):
    return get_user_model().objects.create_user("bob", "bob@example.com", "another long phrase")


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def other_api(other_user) -> APIClient:
    client = APIClient()
    client.force_authenticate(other_user)
    return client


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.STUDIO_LM_CACHE_DIR = tmp_path / "lm_cache"  # user ids repeat across tests


@pytest.fixture
def allow_outgoing(settings) -> Callable[[Any], None]:
    """``allow(server)``: let providers reach a stand-in on 127.0.0.1, as an administrator
    would with STUDIO_ALLOWED_OUTGOING (the outgoing-request policy refuses loopback in
    every settings module, the tests' included)."""

    def allow(server: Any) -> None:
        entry = f"127.0.0.1:{server.port}"
        settings.STUDIO_ALLOWED_OUTGOING = [*settings.STUDIO_ALLOWED_OUTGOING, entry]

    return allow
