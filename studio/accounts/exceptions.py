"""The errors of account services (`studio.common.exceptions` draws the hierarchy)."""

from __future__ import annotations

from studio.common.exceptions import Conflict, DomainError


class AccountError(DomainError):
    """A sign-up the service refuses (400): a taken username, a weak password."""


class DataModelError(DomainError):
    """A library DataModel that cannot be stored (400): an unusable schema, a bad name."""


class DataModelConflict(Conflict):
    """Another DataModel of the same owner has this name (409)."""
