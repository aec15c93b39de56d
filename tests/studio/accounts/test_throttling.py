"""Sign-in and token creation are throttled (failures per address and username, 429 +
Retry-After); `auth/me` matches its schema."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
FAILURES_ALLOWED = 10  # studio.settings.test: "sign_in_failures": "10/min"


@pytest.fixture(autouse=True)
def _fresh_counts():
    cache.clear()
    yield
    cache.clear()


def _token(client: APIClient, password: str, username: str = "ada", **extra: str) -> object:
    return client.post(
        "/api/auth/token/", {"username": username, "password": password}, format="json", **extra
    )


def test_thirty_wrong_passwords_then_the_right_one_are_throttled(user):
    client = APIClient()
    codes = [_token(client, "wrong").status_code for _ in range(30)]
    assert codes[:FAILURES_ALLOWED] == [403] * FAILURES_ALLOWED
    assert set(codes[FAILURES_ALLOWED:]) == {429}
    right = _token(client, PASSWORD)
    assert right.status_code == 429
    assert 0 < int(right["Retry-After"]) <= 60
    assert "throttled" in right.json()["detail"].lower()


def test_sign_in_shares_the_count_and_answers_429(user):
    client = APIClient()
    for _ in range(FAILURES_ALLOWED):
        assert _token(client, "wrong").status_code == 403
    response = client.post(
        "/api/auth/login/", {"username": "ada", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 429
    assert response.has_header("Retry-After")


def test_the_window_passes(user, monkeypatch):
    from studio.accounts.api.throttling import SignInFailureThrottle

    now = [1000.0]
    monkeypatch.setattr(SignInFailureThrottle, "timer", lambda self: now[0])
    client = APIClient()
    for _ in range(FAILURES_ALLOWED):
        _token(client, "wrong")
    assert _token(client, PASSWORD).status_code == 429
    now[0] += 61
    assert _token(client, PASSWORD).status_code == 200


def test_a_success_clears_the_failures(user):
    client = APIClient()
    for _ in range(FAILURES_ALLOWED - 1):
        assert _token(client, "wrong").status_code == 403
    assert _token(client, PASSWORD).status_code == 200
    for _ in range(FAILURES_ALLOWED - 1):
        assert _token(client, "wrong").status_code == 403
    assert _token(client, PASSWORD).status_code == 200


def test_failures_count_per_address_and_username(user, other_user):
    first = APIClient(REMOTE_ADDR="10.0.0.1")
    for _ in range(FAILURES_ALLOWED):
        _token(first, "wrong")
    assert _token(first, PASSWORD).status_code == 429
    # Another user from the same address, and the same user from elsewhere, are unaffected.
    assert _token(first, "another long phrase", username="bob").status_code == 200
    assert _token(APIClient(REMOTE_ADDR="10.0.0.2"), PASSWORD).status_code == 200
    # A forged X-Forwarded-For does not change the address (no trusted proxy by default).
    forged = _token(first, PASSWORD, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert forged.status_code == 429


def test_a_signed_in_token_request_is_not_counted_as_a_failure(user):
    client = APIClient()
    client.force_authenticate(user)
    for _ in range(FAILURES_ALLOWED + 2):
        assert client.post("/api/auth/token/").status_code == 200


def test_me_answers_null_for_no_email_as_the_schema_says(user, django_user_model):
    nobody = django_user_model.objects.create_user("noemail", "", "a long enough phrase")
    client = APIClient()
    client.force_authenticate(nobody)
    assert client.get("/api/auth/me/").json()["email"] is None
    client.force_authenticate(user)
    assert client.get("/api/auth/me/").json()["email"] == "ada@example.com"
    schema = client.get("/api/schema/?format=json").json()
    email = schema["components"]["schemas"]["User"]["properties"]["email"]
    assert email["format"] == "email" and email["nullable"] is True
