"""Providers API: CRUD, write-only encrypted keys, defaults, model building, ownership."""

from __future__ import annotations

import pytest
from django.db import connection

from optimizer_core.language_models import EmbeddingModel, LanguageModel
from studio.providers import crypto, services
from studio.providers.models import Provider

pytestmark = pytest.mark.django_db

SECRET = "sk-test-0123456789-very-secret"


def _create(api, **extra):
    body = {"name": "openai", "model": "openai/gpt-4o-mini", "api_key": SECRET, **extra}
    response = api.post("/api/providers/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_create_never_returns_the_key(api):
    body = _create(api)
    assert body["has_api_key"] is True
    assert "api_key" not in body
    assert "encrypted_api_key" not in body
    assert SECRET not in str(body)
    listed = api.get("/api/providers/")
    assert SECRET not in listed.content.decode()
    assert listed.json()["results"][0]["has_api_key"] is True


def test_key_is_encrypted_in_the_database(api):
    body = _create(api)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT encrypted_api_key FROM providers_provider WHERE id = %s", [body["id"]]
        )
        (raw,) = cursor.fetchone()
    raw_bytes = bytes(raw)
    assert raw_bytes
    assert SECRET.encode() not in raw_bytes
    assert crypto.decrypt(raw_bytes) == SECRET


def test_build_language_model_decrypts_the_key(api):
    body = _create(api, params={"temperature": 0.3}, api_base="https://models.example.com/v1")
    provider = Provider.objects.get(pk=body["id"])
    lm = services.build_language_model(provider)
    assert isinstance(lm, LanguageModel)
    assert lm.model == "openai/gpt-4o-mini"
    assert lm.api_key == SECRET
    assert lm.get_config()["temperature"] == 0.3
    assert lm.get_config()["api_base"] == "https://models.example.com/v1"
    # The key is not part of the model's (serialisable) config.
    assert SECRET not in str(lm.get_config())


def test_build_embedding_model(api):
    body = _create(api, name="emb", kind="embedding", model="openai/text-embedding-3-small")
    provider = Provider.objects.get(pk=body["id"])
    assert isinstance(services.build_embedding_model(provider), EmbeddingModel)
    with pytest.raises(services.ProviderError, match="not a language model"):
        services.build_language_model(provider)


def test_update_keeps_replaces_or_removes_the_key(api):
    body = _create(api)
    url = f"/api/providers/{body['id']}/"
    assert api.patch(url, {"name": "renamed"}, format="json").json()["has_api_key"] is True
    provider = Provider.objects.get(pk=body["id"])
    assert services.build_language_model(provider).api_key == SECRET
    api.patch(url, {"api_key": "sk-new"}, format="json")
    provider.refresh_from_db()
    assert services.build_language_model(provider).api_key == "sk-new"
    assert api.patch(url, {"api_key": ""}, format="json").json()["has_api_key"] is False


def test_first_provider_is_default_and_default_moves(api):
    first = _create(api, name="a")
    second = _create(api, name="b")
    assert first["is_default"] is True
    assert second["is_default"] is False
    response = api.post(f"/api/providers/{second['id']}/set-default/")
    assert response.status_code == 200
    assert response.json()["is_default"] is True
    assert api.get(f"/api/providers/{first['id']}/").json()["is_default"] is False
    third = _create(api, name="c", is_default=True)
    defaults = [p["name"] for p in api.get("/api/providers/?is_default=true").json()["results"]]
    assert defaults == ["c"]
    api.delete(f"/api/providers/{third['id']}/")
    assert sum(p["is_default"] for p in api.get("/api/providers/").json()["results"]) == 1


def test_invalid_params_name_the_field(api):
    response = api.post(
        "/api/providers/",
        {"name": "x", "model": "openai/x", "params": {"temperature": -1}},
        format="json",
    )
    assert response.status_code == 400
    assert "params.temperature" in response.json()
    response = api.post(
        "/api/providers/",
        {"name": "x", "model": "openai/x", "params": {"api_key": "sneaky"}},
        format="json",
    )
    assert "params.api_key" in response.json()
    response = api.post("/api/providers/", {"name": "x"}, format="json")
    assert "model" in response.json()
    assert Provider.objects.count() == 0


def test_duplicate_name_is_refused(api):
    _create(api)
    response = api.post("/api/providers/", {"name": "openai", "model": "openai/x"}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()


def test_list_filters_and_orders(api):
    _create(api, name="b")
    _create(api, name="a", kind="embedding", model="openai/text-embedding-3-small")
    names = [p["name"] for p in api.get("/api/providers/?ordering=-name").json()["results"]]
    assert names == ["b", "a"]
    embedding = api.get("/api/providers/?kind=embedding").json()
    assert [p["name"] for p in embedding["results"]] == ["a"]
    assert embedding["count"] == 1


def test_catalogue_lists_the_local_model(api):
    response = api.get("/api/providers/catalogue/")
    assert response.status_code == 200
    models = [entry["model"] for entry in response.json()]
    assert "local/smollm2" in models
    assert any(m.startswith("openai/") for m in models)
    assert any(m.startswith("anthropic/") for m in models)


def test_other_user_gets_404(api, other_api):
    body = _create(api)
    url = f"/api/providers/{body['id']}/"
    assert other_api.get(url).status_code == 404
    assert other_api.patch(url, {"name": "mine"}, format="json").status_code == 404
    assert other_api.delete(url).status_code == 404
    assert other_api.post(f"{url}set-default/").status_code == 404
    assert other_api.get("/api/providers/").json()["count"] == 0
    assert Provider.objects.get(pk=body["id"]).name == "openai"


def test_delete(api):
    body = _create(api)
    assert api.delete(f"/api/providers/{body['id']}/").status_code == 204
    assert not Provider.objects.exists()


def test_local_key_derivation(settings):
    settings.STUDIO_ENCRYPTION_KEY = ""
    settings.SECRET_KEY = "one secret"
    token = crypto.encrypt("abc")
    assert crypto.decrypt(token) == "abc"
    settings.SECRET_KEY = "another secret"
    with pytest.raises(crypto.DecryptionError, match="enter the key again"):
        crypto.decrypt(token)
    assert crypto.derive_key("s") == crypto.derive_key("s") != crypto.derive_key("t")


def test_a_malformed_encryption_key_is_a_configuration_error(settings):
    from django.core.exceptions import ImproperlyConfigured

    settings.STUDIO_ENCRYPTION_KEY = "not-a-fernet-key"
    with pytest.raises(ImproperlyConfigured, match="STUDIO_ENCRYPTION_KEY"):
        crypto.encrypt("x")


def test_failed_update_changes_nothing(api):
    body = _create(api, params={"temperature": 0.5})
    url = f"/api/providers/{body['id']}/"
    response = api.patch(
        url, {"api_key": "sk-other", "params": {"temperature": -2}, "name": "x"}, format="json"
    )
    assert response.status_code == 400
    assert "params.temperature" in response.json()
    provider = Provider.objects.get(pk=body["id"])
    assert provider.name == "openai"
    assert provider.params == {"temperature": 0.5}
    assert services.build_language_model(provider).api_key == SECRET
