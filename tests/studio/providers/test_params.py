"""A provider's params are the declared settings of its kind: anything else is a 400 naming it.

A row stored before (with a path, a binary, an unbounded retry count) loses those keys in
migration 0003, which records them, and a model built from it never sees them.
"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps

from optimizer_core.language_models import LanguageModel
from studio.providers.models import Provider
from studio.providers.services import build_language_model

pytestmark = pytest.mark.django_db

BASE = "https://models.example.com/v1"


def _create(api, model: str = "openai/gpt-4o-mini", **params):
    body = {"name": "p", "model": model, "api_base": BASE, "params": params}
    if model.startswith("local/"):
        body["api_base"] = ""
    return api.post("/api/providers/", body, format="json")


@pytest.mark.parametrize(
    ("model", "params", "path"),
    [
        ("openai/gpt-4o-mini", {"cache_dir": "/tmp/anywhere"}, "params.cache_dir"),
        ("openai/gpt-4o-mini", {"model_path": "/etc/passwd"}, "params.model_path"),
        ("local/smollm2", {"model_path": "/etc/passwd"}, "params.model_path"),
        ("local/smollm2", {"n_ctx": 10_000_000}, "params.n_ctx"),
        ("openai/gpt-4o-mini", {"timeout": 1e9}, "params.timeout"),
        ("openai/gpt-4o-mini", {"max_retries": 1_000_000}, "params.max_retries"),
        ("openai/gpt-4o-mini", {"max_concurrency": 100_000}, "params.max_concurrency"),
        ("openai/gpt-4o-mini", {"base_url": "http://169.254.169.254"}, "params.base_url"),
        ("openai/gpt-4o-mini", {"api_key": "sk-x"}, "params.api_key"),
        ("openai/gpt-4o-mini", {"api_base": BASE}, "params.api_base"),
        ("openai/gpt-4o-mini", {"client": "x"}, "params.client"),
        ("anthropic/claude-3-5-haiku-latest", {"seed": 1}, "params.seed"),
        ("openai/gpt-4o-mini", {"temperature": 9}, "params.temperature"),
        ("openai/gpt-4o-mini", {"structured_output": "grammar"}, "params.structured_output"),
        (
            "openai/gpt-4o-mini",
            {"extra_headers": {"Authorization": "Bearer x"}},
            "params.extra_headers.Authorization",
        ),
        ("openai/gpt-4o-mini", {"extra_headers": {"X-Ok": "a\r\nb"}}, "params.extra_headers.X-Ok"),
        ("bedrock/anthropic.claude-v2", {}, "model"),
    ],
)
def test_a_refused_param_is_a_400_naming_it(api, model, params, path) -> None:
    response = _create(api, model, **params)
    assert response.status_code == 400, response.content
    assert path in response.json(), response.json()
    if path.startswith("params."):
        assert f"`{path.split('.')[-1]}`" in response.json()[path][0]


def test_the_declared_settings_are_accepted_and_reach_the_model(api) -> None:
    settings = {
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 256,
        "seed": 7,
        "stop": ["\n\n"],
        "structured_output": "json_object",
        "timeout": 30,
        "total_timeout": 90,
        "max_retries": 2,
        "max_concurrency": 8,
        "extra_headers": {"X-Team": "research"},
    }
    response = _create(api, **settings)
    assert response.status_code == 201, response.content
    model = build_language_model(Provider.objects.get(pk=response.json()["id"]))
    assert isinstance(model, LanguageModel)
    config = model.get_config()
    assert (config["temperature"], config["max_tokens"], config["timeout"]) == (0.2, 256, 30)
    assert model.litellm_kwargs["extra_headers"] == {"X-Team": "research"}
    assert model.litellm_kwargs["top_p"] == 0.9 and model.max_retries == 2


def test_the_migration_drops_refused_keys_and_records_them(user) -> None:
    stored = Provider.objects.create(
        owner=user, name="old", model="openai/gpt-4o-mini", api_base=BASE,
        params={"temperature": 0.3, "cache_dir": "/root/x", "max_retries": 1_000_000},
    )  # fmt: skip
    # A run built from the row before the migration ran sees only the allowed ones.
    model = build_language_model(stored)
    assert model.cache_dir is None and model.max_retries == 5 and model.temperature == 0.3
    migration = importlib.import_module("studio.providers.migrations.0003_declared_params")
    migration.drop_refused(django_apps, None)
    stored.refresh_from_db()
    assert stored.params == {"temperature": 0.3}
    assert stored.dropped_params == {"cache_dir": "/root/x", "max_retries": 1_000_000}
    migration.restore(django_apps, None)
    stored.refresh_from_db()
    assert stored.params["cache_dir"] == "/root/x" and stored.dropped_params == {}


def test_the_engine_is_built_with_the_declared_params_only(user, monkeypatch) -> None:
    from studio.providers import services

    built: list[dict] = []

    class Recording(LanguageModel):
        def __init__(self, model: str, **kwargs) -> None:
            built.append({"model": model, **kwargs})
            super().__init__(model, **kwargs)

    monkeypatch.setattr(services, "LanguageModel", Recording)
    stored = {"temperature": 0.5, "cache_dir": "/srv/x", "model_path": "/etc/passwd",
              "api_base": "file:///etc", "n_ctx": 10_000_000, "max_retries": 2}  # fmt: skip
    provider = Provider.objects.create(owner=user, name="old", model="openai/m", params=stored)
    build_language_model(provider)
    [kwargs] = built
    assert kwargs["temperature"] == 0.5 and kwargs["max_retries"] == 2
    for refused in ("cache_dir", "model_path", "n_ctx"):
        assert refused not in kwargs
    assert kwargs["api_base"] is None
