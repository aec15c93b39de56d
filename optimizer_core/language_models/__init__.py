"""Language and embedding models: the only part of the library that talks to litellm.

`LanguageModel` and `EmbeddingModel` wrap litellm with retries (exponential
backoff, full jitter, Retry-After), a bound on requests in flight, an optional
on-disk cache and per-call accounting (`Usage`, `CallRecord`).
`FakeLanguageModel` and `FakeEmbeddingModel` replace only the transport, so
tests run the real retry, parsing and accounting code without a provider.

litellm is imported on the first request, not with this package.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.language_models.budget import Budget, BudgetExhausted
from optimizer_core.language_models.embedding_model import EmbeddingModel
from optimizer_core.language_models.fake import FakeEmbeddingModel, FakeLanguageModel
from optimizer_core.language_models.language_model import LanguageModel
from optimizer_core.language_models.redaction import redact_secrets
from optimizer_core.language_models.usage import CallRecord, Usage
from optimizer_core.saving.families import Family

__all__ = [
    "Budget",
    "BudgetExhausted",
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


def _by_model_name(name: str) -> LanguageModel | None:
    """A litellm model name (``"openai/gpt-4o-mini"``): a LanguageModel with default settings."""
    return LanguageModel(name) if "/" in name else None


_FAMILY: Family[LanguageModel | EmbeddingModel] = Family(
    kind="language model",
    base=(LanguageModel, EmbeddingModel),
    built_ins=(LanguageModel, EmbeddingModel, FakeLanguageModel, FakeEmbeddingModel),
    other_names=_by_model_name,
    other_names_hint="a litellm model name like 'openai/gpt-4o-mini'",
)


def serialize(model: LanguageModel | EmbeddingModel) -> dict[str, Any]:
    """``{"module", "class_name", "registered_name", "config"}`` for a model (no API key)."""
    return _FAMILY.serialize(model)


def deserialize(config: dict[str, Any]) -> LanguageModel | EmbeddingModel:
    """Rebuild a model from `serialize` output."""
    return _FAMILY.deserialize(config)


def get(identifier: Any) -> LanguageModel | EmbeddingModel:
    """Find a model from an instance, a serialised dict or a name.

    Args:
        identifier: a model instance (returned as is); a dict from `serialize`;
            a class name in any spelling for a class that needs no arguments
            (``"FakeLanguageModel"``, ``"fake_embedding_model"``); the registered
            name of a model subclass; or a litellm model name containing ``/``
            (``"openai/gpt-4o-mini"``), which gives a `LanguageModel` with
            default settings.

    Raises:
        ValueError: the identifier names nothing known, or a class that needs arguments.
        TypeError: an identifier of another type.

    Example:
        ```python
        lm = get("openai/gpt-4o-mini")
        fake = get("fake_language_model")
        ```
    """
    return _FAMILY.get(identifier)
