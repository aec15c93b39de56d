"""The errors of provider services (`studio.common.exceptions` draws the hierarchy)."""

from __future__ import annotations

from studio.common.exceptions import DomainError


class ProviderError(DomainError):
    """A provider request that cannot be honoured (400); ``path`` names the culprit."""


class OutgoingRefused(ProviderError):
    """The outgoing-request policy refuses where the provider points (400, path ``api_base``).

    The message names the address, why it is refused and what an administrator would
    have to allow (``studio.providers.outgoing``).
    """
