"""Sign-up, the sign-in page's settings, the admin's user pages, and the provider every
new account starts with (sign-up, createsuperuser, the admin, create_user)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.test import APIClient

from studio.accounts import services
from studio.accounts.api.throttling import SignUpThrottle
from studio.providers.models import Provider

pytestmark = pytest.mark.django_db

PASSWORD = "a fine long passphrase"


@pytest.fixture(autouse=True)
def _open(settings):
    settings.STUDIO_OPEN_REGISTRATION = True
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def bundled(settings, monkeypatch):
    """New accounts get the starter provider, the bundled model being installed."""
    settings.STUDIO_STARTER_PROVIDER = True
    monkeypatch.setattr(services, "bundled_model_installed", lambda: True)


def _csrf_client() -> tuple[APIClient, str]:
    client = APIClient(enforce_csrf_checks=True)
    client.get("/api/auth/csrf/")
    return client, client.cookies["csrftoken"].value


def _sign_up(client: APIClient, token: str | None = None, **body: str) -> object:
    body = {"username": "newcomer", "password": PASSWORD, **body}
    extra = {"HTTP_X_CSRFTOKEN": token} if token else {}
    return client.post("/api/auth/signup/", body, format="json", **extra)


def test_sign_up_creates_the_user_and_signs_in():
    client, token = _csrf_client()
    response = _sign_up(client, token, email="new@example.com")
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "newcomer"
    assert response.json()["email"] == "new@example.com"
    assert response.json()["is_staff"] is False
    assert client.get("/api/auth/me/").json()["username"] == "newcomer"
    user = get_user_model().objects.get(username="newcomer")
    assert user.check_password(PASSWORD) and not user.is_staff


def test_email_is_optional():
    client, token = _csrf_client()
    response = _sign_up(client, token)
    assert response.status_code == 201
    assert response.json()["email"] is None


def test_sign_up_needs_csrf():
    client, _ = _csrf_client()
    response = _sign_up(client)
    assert response.status_code == 403
    assert not get_user_model().objects.exists()


def test_closed_registration_refuses(settings):
    settings.STUDIO_OPEN_REGISTRATION = False
    client, token = _csrf_client()
    response = _sign_up(client, token)
    assert response.status_code == 403
    assert "registration is closed" in response.json()["detail"]
    assert not get_user_model().objects.exists()


@pytest.mark.parametrize(
    ("body", "path", "words"),
    [
        ({"password": "short"}, "password", "too short"),
        ({"password": "password123"}, "password", "too common"),
        ({"username": "no spaces please"}, "username", "valid username"),
        ({"username": ""}, "username", "blank"),
        ({"email": "not an address"}, "email", "valid email"),
    ],
)
def test_invalid_sign_ups_name_the_field(body, path, words):
    client, token = _csrf_client()
    response = _sign_up(client, token, **body)
    assert response.status_code == 400, response.content
    messages = " ".join(response.json()[path]).lower()
    assert words in messages
    assert not get_user_model().objects.exists()


def test_a_taken_username_is_refused_whatever_its_case(user):
    client, token = _csrf_client()
    response = _sign_up(client, token, username="ADA")
    assert response.status_code == 400
    assert response.json()["username"] == ["this username is taken"]
    assert get_user_model().objects.count() == 1


def test_sign_up_is_throttled_per_address(monkeypatch):
    monkeypatch.setattr(SignUpThrottle, "THROTTLE_RATES", {"sign_up": "3/min"})
    client = APIClient()
    codes = [_sign_up(client, username=f"user{i}").status_code for i in range(3)]
    codes.append(_sign_up(client, password="short", username="weak").status_code)
    assert codes == [201, 201, 201, 429]
    late = _sign_up(client, username="late")
    assert late.status_code == 429
    assert 0 < int(late["Retry-After"]) <= 60
    assert get_user_model().objects.count() == 3


# --------------------------------------------------------------------------- the starter provider


def test_a_signed_up_account_can_train_at_once(bundled):
    client, token = _csrf_client()
    assert _sign_up(client, token).status_code == 201
    providers = client.get("/api/providers/").json()["results"]
    assert [(p["name"], p["model"], p["is_default"]) for p in providers] == [
        ("Bundled local model", "local/smollm2", True)
    ]


def test_without_the_bundled_model_a_new_account_has_no_provider(settings, monkeypatch):
    settings.STUDIO_STARTER_PROVIDER = True
    monkeypatch.setattr(services, "bundled_model_installed", lambda: False)
    client, token = _csrf_client()
    assert _sign_up(client, token).status_code == 201
    assert not Provider.objects.exists()


def test_the_setting_turns_the_starter_provider_off(settings, monkeypatch):
    settings.STUDIO_STARTER_PROVIDER = False
    monkeypatch.setattr(services, "bundled_model_installed", lambda: True)
    get_user_model().objects.create_user("someone", password=PASSWORD)
    assert not Provider.objects.exists()


def test_createsuperuser_gets_the_starter_provider(bundled, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", "--noinput", username="root", email="root@example.com")
    provider = Provider.objects.get(owner__username="root")
    assert provider.model == "local/smollm2" and provider.is_default


def test_a_user_added_in_the_admin_gets_the_starter_provider(bundled):
    admin = get_user_model().objects.create_superuser("boss", "boss@example.com", PASSWORD)
    client = APIClient()
    client.force_login(admin)
    response = client.post(
        "/admin/auth/user/add/",
        {
            "username": "hired",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "usable_password": "true",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Provider.objects.get(owner__username="hired").model == "local/smollm2"


def test_create_user_gets_it_once_and_keeps_its_own_providers(bundled):
    user = get_user_model().objects.create_user("scripted", password=PASSWORD)
    assert Provider.objects.filter(owner=user).count() == 1
    assert services.give_starter_provider(user) is None  # idempotent
    user.save()  # not a creation
    assert Provider.objects.filter(owner=user).count() == 1


def test_the_demo_account_gets_one_provider(bundled):
    demo = services.ensure_demo(username="demo2", password=PASSWORD)
    assert list(Provider.objects.filter(owner=demo.user).values_list("name", flat=True)) == [
        "Bundled local model"
    ]


# --------------------------------------------------------------------------- sign-in page settings


def test_auth_config_says_whether_registration_is_open(settings):
    client = APIClient()
    assert client.get("/api/auth/config/").json() == {
        "registration_open": True,
        "demo_account": None,
    }
    settings.STUDIO_OPEN_REGISTRATION = False
    assert client.get("/api/auth/config/").json()["registration_open"] is False


def test_the_demo_account_is_named_only_with_its_default_password(settings, monkeypatch):
    monkeypatch.delenv("STUDIO_DEMO_USER", raising=False)
    settings.STUDIO_SHOW_DEMO_ACCOUNT = True
    client = APIClient()
    assert client.get("/api/auth/config/").json()["demo_account"] is None  # no demo user yet

    demo = get_user_model().objects.create_user("demo", password=services.DEFAULT_DEMO_PASSWORD)
    assert client.get("/api/auth/config/").json()["demo_account"] == {
        "username": "demo",
        "password": services.DEFAULT_DEMO_PASSWORD,
    }

    demo.set_password("changed by its owner")
    demo.save()
    assert client.get("/api/auth/config/").json()["demo_account"] is None


def test_the_demo_password_is_never_shown_outside_the_embedded_default(settings):
    settings.STUDIO_SHOW_DEMO_ACCOUNT = False  # base and production settings
    get_user_model().objects.create_user("demo", password=services.DEFAULT_DEMO_PASSWORD)
    assert APIClient().get("/api/auth/config/").json()["demo_account"] is None


def test_deployment_defaults():
    from studio.settings import base

    assert base.STUDIO_OPEN_REGISTRATION is False
    assert base.STUDIO_SHOW_DEMO_ACCOUNT is False


# --------------------------------------------------------------------------- admin


def test_staff_reach_the_user_pages_of_the_admin(user):
    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", PASSWORD)
    client = APIClient()
    client.force_login(staff)
    index = client.get("/admin/")
    assert index.status_code == 200
    assert "Studio administration" in index.content.decode()
    users = client.get("/admin/auth/user/")
    assert users.status_code == 200 and "ada" in users.content.decode()
    assert client.get("/api/auth/me/").json()["is_staff"] is True


def test_others_are_sent_to_the_admin_sign_in(user):
    client = APIClient()
    client.force_login(user)
    response = client.get("/admin/auth/user/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
