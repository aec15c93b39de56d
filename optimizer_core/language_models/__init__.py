"""Language and embedding models: the only part of the library that talks to litellm.

`LanguageModel` and `EmbeddingModel` wrap litellm with retries (exponential
backoff, full jitter, Retry-After), a bound on requests in flight, an optional
on-disk cache and per-call accounting (`Usage`, `CallRecord`).
`FakeLanguageModel` and `FakeEmbeddingModel` replace only the transport, so
tests run the real retry, parsing and accounting code without a provider.

litellm is imported on the first request, not with this package.
"""

from __future__ import annotations

import re
from typing import Any

from optimizer_core.language_models.embedding_model import EmbeddingModel
from optimizer_core.language_models.fake import FakeEmbeddingModel, FakeLanguageModel
from optimizer_core.language_models.language_model import LanguageModel
from optimizer_core.language_models.redaction import redact_secrets
from optimizer_core.language_models.usage import CallRecord, Usage
from optimizer_core.saving.object_registry import deserialize_object, serialize_object

__all__ = [
    "CallRecord",
    "EmbeddingModel",
    "FakeEmbeddingModel",
    "FakeLanguageModel",
    "LanguageModel",
    "Usage",
    "deserialize",
    "get",
    "redact_secrets",
    "serialize",
]

_MODEL_CLASSES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (LanguageModel, EmbeddingModel, FakeLanguageModel, FakeEmbeddingModel)
}


def _snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_BY_SNAKE_NAME = {_snake_case(name): cls for name, cls in _MODEL_CLASSES.items()}


def serialize(model: LanguageModel | EmbeddingModel) -> dict[str, Any]:
    """``{"module", "class_name", "registered_name", "config"}`` for a model (no API key)."""
    return serialize_object(model)


def deserialize(config: dict[str, Any]) -> LanguageModel | EmbeddingModel:
    """Rebuild a model from `serialize` output."""
    model: LanguageModel | EmbeddingModel = deserialize_object(
        config, module_objects=_MODEL_CLASSES
    )
    return model


def get(identifier: Any) -> LanguageModel | EmbeddingModel:
    """Find a model from an instance, a serialised dict or a name.

    Args:
        identifier: a model instance (returned as is); a dict from `serialize`;
            a class name in CamelCase or snake_case for a class that needs no
            arguments (``"FakeLanguageModel"``, ``"fake_embedding_model"``); or
            a litellm model name containing ``/`` (``"openai/gpt-4o-mini"``),
            which gives a `LanguageModel` with default settings.

    Raises:
        ValueError: the identifier names nothing known.

    Example:
        ```python
        lm = get("openai/gpt-4o-mini")
        fake = get("fake_language_model")
        ```
    """
    if isinstance(identifier, LanguageModel | EmbeddingModel):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _MODEL_CLASSES.get(identifier) or _BY_SNAKE_NAME.get(identifier.lower())
        if cls is not None:
            try:
                model: LanguageModel | EmbeddingModel = cls()
            except TypeError as error:
                raise ValueError(
                    f"{identifier!r} needs arguments (a `model` name at least): "
                    f"build {cls.__name__}(model=...) instead ({error})"
                ) from None
            return model
        if "/" in identifier:
            return LanguageModel(identifier)
        raise ValueError(
            f"unknown language model {identifier!r}: expected one of "
            f"{sorted(_MODEL_CLASSES)} (or snake_case), or a litellm model name "
            "like 'openai/gpt-4o-mini'"
        )
    raise TypeError(
        f"cannot get a model from a {type(identifier).__name__}: give an instance, "
        "a serialised dict or a name"
    )
