"""What a run is trained with that other apps own: its dataset's rows and its models.

A dataset version's rows split into inputs and targets (`studio.datasets.services.load_examples`)
and their keys,
a provider's `LanguageModel` with its decrypted key
(`studio.providers.services.build_language_model`) and the owner's embedding
model. The training code reaches those apps through these functions only, so a
change of their APIs touches this file alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from studio.common.exceptions import DomainError

if TYPE_CHECKING:
    from studio.datasets.models import Dataset, DatasetVersion
    from studio.providers.models import Provider

Rows = list[dict[str, Any]]
#: How a caller refuses a field: its own DomainError class, called with a message and a path.
Refusal = Callable[..., DomainError]


def load_examples(
    dataset: Dataset, *, split: str, version: DatasetVersion | None = None
) -> tuple[Rows, Rows]:
    """The ``split`` ("train" or "test") of a dataset's version (default: its latest) as
    (inputs, targets), one dict per row."""
    from studio.datasets.services import load_examples as load

    inputs, outputs = load(dataset, split=split, version=version)
    return list(inputs), list(outputs)


def latest_version(dataset: Dataset) -> DatasetVersion:
    """The dataset's newest version (what a run created without one trains on)."""
    from studio.datasets.versions import latest_version as latest

    return latest(dataset)


def get_version(dataset: Dataset, number: int) -> DatasetVersion | None:
    """The dataset's version ``number``, or None."""
    from studio.datasets.versions import get_version as get

    return get(dataset, number)


def usable_version(
    dataset: Dataset, number: int | None, refuse: Refusal, *, path: str = "dataset_version"
) -> DatasetVersion:
    """The version ``number`` (None: the latest) of a valid dataset, else refused at a field.

    Raises:
        ``refuse(message, path=...)``: the dataset is not valid (at ``dataset``), or has no
        such version (at ``path``).
    """
    if dataset.status != "valid":
        raise refuse(f"dataset is {dataset.status}, not valid", path="dataset")
    version = latest_version(dataset) if number is None else get_version(dataset, number)
    if version is None:
        raise refuse(f"dataset {dataset.name!r} has no version {number}", path=path)
    return version


def usable_provider(provider: Provider, refuse: Refusal, *, path: str) -> Provider:
    """A language provider the outgoing-request policy lets programs call, else refused."""
    from studio.providers import services as provider_services

    if provider.kind != "language":
        raise refuse("an embedding provider cannot run a program", path=path)
    try:
        provider_services.preflight(provider)
    except provider_services.ProviderError as refused:  # the outgoing-request policy
        raise refuse(str(refused), path=path) from None
    return provider


def row_keys(inputs: Rows, targets: Rows) -> list[str]:
    """Each row's key, as dataset versions hash rows (what pairs two runs' test rows)."""
    from studio.datasets.versions import row_key

    return [row_key(x, y) for x, y in zip(inputs, targets, strict=True)]


def default_embedding_model(owner: Any) -> Any:
    """The owner's embedding model (their default embedding provider, else the bundled one)."""
    from studio.providers.services import default_embedding_model as build

    return build(owner)


def build_language_model(provider: Provider) -> Any:
    """The provider's `optimizer_core.LanguageModel`, with its decrypted key."""
    from studio.providers.services import build_language_model as build

    return build(provider)
