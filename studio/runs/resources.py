"""What a run is trained with that other apps own: its dataset's rows and its models.

A dataset's rows split into inputs and targets (`studio.datasets.services.load_examples`),
a provider's `LanguageModel` with its decrypted key
(`studio.providers.services.build_language_model`) and the owner's embedding
model. The training code reaches those apps through these functions only, so a
change of their APIs touches this file alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.datasets.models import Dataset
    from studio.providers.models import Provider

Rows = list[dict[str, Any]]


def load_examples(dataset: Dataset, *, split: str) -> tuple[Rows, Rows]:
    """The dataset's ``split`` ("train" or "test") as (inputs, targets), one dict per row."""
    from studio.datasets.services import load_examples as load

    inputs, outputs = load(dataset, split=split)
    return list(inputs), list(outputs)


def default_embedding_model(owner: Any) -> Any:
    """The owner's embedding model (their default embedding provider, else the bundled one)."""
    from studio.providers.services import default_embedding_model as build

    return build(owner)


def build_language_model(provider: Provider) -> Any:
    """The provider's `optimizer_core.LanguageModel`, with its decrypted key."""
    from studio.providers.services import build_language_model as build

    return build(provider)
