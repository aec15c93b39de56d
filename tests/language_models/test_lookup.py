"""get / serialize / deserialize, and configs that never hold the API key."""

from __future__ import annotations

import json

import pytest

from optimizer_core import language_models
from optimizer_core.language_models import (
    EmbeddingModel,
    FakeEmbeddingModel,
    FakeLanguageModel,
    LanguageModel,
)


def test_language_model_config_round_trips_without_the_key() -> None:
    lm = LanguageModel(
        "openai/gpt-4o-mini",
        api_base="http://localhost:8000/v1",
        api_key="sk-secret-value",
        temperature=0.2,
        max_tokens=256,
        structured_output="json_object",
        top_p=0.9,
        extra_headers={"Authorization": "Bearer sk-secret-value"},
    )
    config = lm.get_config()
    assert "sk-secret-value" not in json.dumps(config)
    assert "sk-secret-value" not in repr(lm)
    assert config["top_p"] == 0.9
    rebuilt = LanguageModel.from_config(config)
    assert rebuilt.get_config() == config
    assert rebuilt.api_key is None


def test_embedding_model_config_round_trips_without_the_key() -> None:
    em = EmbeddingModel("openai/text-embedding-3-small", api_key="sk-secret-value", dimensions=8)
    config = em.get_config()
    assert "sk-secret-value" not in json.dumps(config)
    assert EmbeddingModel.from_config(config).get_config() == config


@pytest.mark.parametrize(
    "model",
    [
        LanguageModel("openai/gpt-4o-mini", temperature=0.0),
        EmbeddingModel("openai/text-embedding-3-small"),
        FakeLanguageModel([{"answer": "x"}]),
        FakeEmbeddingModel(dim=8),
    ],
)
def test_serialize_and_deserialize(model: LanguageModel | EmbeddingModel) -> None:
    data = language_models.serialize(model)
    json.dumps(data)
    rebuilt = language_models.deserialize(data)
    assert type(rebuilt) is type(model)
    assert rebuilt.get_config() == model.get_config()
    assert type(language_models.get(data)) is type(model)


def test_get_by_name_instance_and_model_string() -> None:
    assert isinstance(language_models.get("FakeLanguageModel"), FakeLanguageModel)
    assert isinstance(language_models.get("fake_embedding_model"), FakeEmbeddingModel)
    lm = FakeLanguageModel()
    assert language_models.get(lm) is lm
    by_model = language_models.get("openai/gpt-4o-mini")
    assert isinstance(by_model, LanguageModel) and by_model.model == "openai/gpt-4o-mini"


def test_get_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown language model 'nonsense'"):
        language_models.get("nonsense")
    with pytest.raises(ValueError, match="needs arguments"):
        language_models.get("language_model")
    with pytest.raises(TypeError):
        language_models.get(42)


def test_importing_the_package_does_not_import_litellm() -> None:
    import subprocess
    import sys

    code = (
        "import sys, optimizer_core.language_models, optimizer_core.testing.scripted_server;"
        "print('litellm' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_reserved_litellm_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="`num_retries`"):
        LanguageModel("openai/x", num_retries=3)
    with pytest.raises(ValueError, match="`response_format`"):
        LanguageModel("openai/x", response_format={"type": "json_object"})
