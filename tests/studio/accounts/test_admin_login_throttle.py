"""/admin/login/ is throttled like the API sign-in: wrong passwords stop at the failure rate."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()
    yield
    cache.clear()


def test_wrong_passwords_stop_at_the_failure_rate_then_even_the_right_one_waits() -> None:
    get_user_model().objects.create_superuser("root", "root@example.com", "the right one")
    client = Client()
    statuses = [
        client.post("/admin/login/", {"username": "root", "password": f"wrong {i}"}).status_code
        for i in range(12)
    ]
    assert statuses[:10] == [200] * 10  # the form again: wrong password (10/min allowed)
    assert statuses[10:] == [429, 429]
    refused = client.post("/admin/login/", {"username": "root", "password": "the right one"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0


def test_the_right_password_signs_in_and_clears_the_failures() -> None:
    get_user_model().objects.create_superuser("root", "root@example.com", "the right one")
    client = Client()
    assert client.post("/admin/login/", {"username": "root", "password": "no"}).status_code == 200
    signed_in = client.post(
        "/admin/login/", {"username": "root", "password": "the right one", "next": "/admin/"}
    )
    assert signed_in.status_code == 302
    assert client.get("/admin/login/").status_code in (200, 302)
