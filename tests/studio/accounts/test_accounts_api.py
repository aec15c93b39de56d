"""Authentication: session login with CSRF, logout, me, token for scripts; the demo account."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

import optimizer_core as oc
from studio.datasets import services as dataset_services
from studio.datasets.models import Dataset
from studio.programs.models import Program
from studio.providers.models import Provider

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def _csrf_client() -> tuple[APIClient, str]:
    client = APIClient(enforce_csrf_checks=True)
    response = client.get("/api/auth/csrf/")
    assert response.status_code == 200
    token = client.cookies["csrftoken"].value
    assert response.json()["csrf_token"]
    return client, token


def test_login_me_logout(user):
    client, token = _csrf_client()
    response = client.post(
        "/api/auth/login/",
        {"username": "ada", "password": PASSWORD},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 200, response.content
    assert response.json()["username"] == "ada"
    assert client.get("/api/auth/me/").json()["username"] == "ada"
    token = client.cookies["csrftoken"].value  # rotated at login
    assert client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=token).status_code == 204
    assert client.get("/api/auth/me/").status_code in (401, 403)


def test_login_without_csrf_is_refused(user):
    client = APIClient(enforce_csrf_checks=True)
    response = client.post(
        "/api/auth/login/", {"username": "ada", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 403


def test_wrong_password(user):
    client, token = _csrf_client()
    response = client.post(
        "/api/auth/login/",
        {"username": "ada", "password": "nope"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code in (401, 403)
    assert "wrong username or password" in response.json()["detail"]
    assert client.get("/api/auth/me/").status_code in (401, 403)


def test_session_unsafe_requests_need_csrf(user):
    client, token = _csrf_client()
    client.post(
        "/api/auth/login/",
        {"username": "ada", "password": PASSWORD},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    token = client.cookies["csrftoken"].value
    body = {"name": "p", "model": "openai/x"}
    refused = client.post("/api/providers/", body, format="json")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    assert not Provider.objects.exists()
    accepted = client.post("/api/providers/", body, format="json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201
    # Safe methods need no token.
    assert client.get("/api/providers/").status_code == 200


def test_token_for_scripts(user):
    client = APIClient()
    response = client.post(
        "/api/auth/token/", {"username": "ada", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200
    key = response.json()["token"]
    script = APIClient(enforce_csrf_checks=True)
    script.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert script.get("/api/auth/me/").json()["username"] == "ada"
    # Token-authenticated unsafe requests need no CSRF token.
    assert (
        script.post(
            "/api/providers/", {"name": "p", "model": "openai/x"}, format="json"
        ).status_code
        == 201
    )
    # The same token again.
    again = client.post(
        "/api/auth/token/", {"username": "ada", "password": PASSWORD}, format="json"
    )
    assert again.json()["token"] == key
    assert client.post(
        "/api/auth/token/", {"username": "ada", "password": "x"}, format="json"
    ).status_code in (401, 403)


def test_token_when_already_authenticated(api):
    response = api.post("/api/auth/token/")
    assert response.status_code == 200
    assert len(response.json()["token"]) == 40


def test_me_needs_authentication():
    assert APIClient().get("/api/auth/me/").status_code in (401, 403)


def test_ensure_demo_is_idempotent(monkeypatch):
    monkeypatch.setenv("STUDIO_DEMO_USER", "newcomer")
    monkeypatch.setenv("STUDIO_DEMO_PASSWORD", "a long demo passphrase")
    call_command("ensure_demo")
    call_command("ensure_demo")
    assert Program.objects.filter(owner__username="newcomer").count() == 1
    assert Dataset.objects.filter(owner__username="newcomer").count() == 1
    provider = Provider.objects.get(owner__username="newcomer")
    assert provider.is_default and provider.model == "local/smollm2"

    program = Program.objects.get(owner__username="newcomer")
    document = program.latest_version.document
    loaded = oc.Program.from_json(document)
    generator = loaded.modules[-1]
    assert generator.language_model.model == "local/smollm2"
    dataset = Dataset.objects.get(owner__username="newcomer")
    assert dataset.status == "valid"
    x_train, y_train = dataset_services.load_examples(dataset, split="train")
    x_test, _ = dataset_services.load_examples(dataset, split="test")
    assert len(x_train) == 100 and len(x_test) == 100
    assert set(x_train[0]) == {"message"} and set(y_train[0]) == {"topic"}
    assert {row["topic"] for row in y_train} == {"refund", "delivery", "address", "password"}
    # The topic's 16-character cap reaches the model (a grammar on the bundled one).
    assert generator.output_model.get_schema()["properties"]["topic"]["maxLength"] == 16
    assert "refund, delivery" in program.description

    client, token = _csrf_client()
    response = client.post(
        "/api/auth/login/",
        {"username": "newcomer", "password": "a long demo passphrase"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 200
