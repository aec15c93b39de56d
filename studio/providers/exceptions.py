"""The errors of provider services (`studio.common.exceptions` draws the hierarchy)."""

from __future__ import annotations

from studio.common.exceptions import DomainError


class ProviderError(DomainError):
    """A provider request that cannot be honoured (400); ``path`` names the culprit."""
