"""The demo's default provider, "local/smollm2", reaches the bundled model."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from optimizer_core.local_models import (
    LocalEmbeddingModel,
    LocalLanguageModel,
    embedding_available,
    server_available,
)
from studio.providers.models import Provider
from studio.providers.services import build_language_model, default_embedding_model

pytestmark = [pytest.mark.django_db, pytest.mark.bundled_model]


@pytest.mark.skipif(not server_available(), reason="the bundled model is not installed")
def test_a_local_provider_answers_through_the_bundled_server(user) -> None:
    provider = Provider.objects.create(owner=user, name="local", model="local/smollm2")
    lm = build_language_model(provider)
    assert isinstance(lm, LocalLanguageModel)
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string", "maxLength": 40}},  # no runaway string
        "required": ["answer"],
    }
    messages = [{"role": "user", "content": "Name a colour."}]
    answer = async_to_sync(lm)(messages, schema=schema)
    assert isinstance(answer["answer"], str)
    assert build_language_model(provider).api_base == lm.api_base  # one server, shared


@pytest.mark.skipif(not embedding_available(), reason="the bundled embedder is not installed")
def test_without_an_embedding_provider_the_bundled_embedder_is_used(user) -> None:
    assert isinstance(default_embedding_model(user), LocalEmbeddingModel)
