"""The errors of scorer services (`studio.common.exceptions` draws the hierarchy)."""

from __future__ import annotations

from studio.common.exceptions import Conflict, DomainError, NotFound, TooLarge


class SourceInvalid(DomainError):
    """Code that does not load in the sandbox (400 at ``source``), with the sandbox's reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, path="source")


class SourceTooLarge(TooLarge):
    """Code longer than `services.MAX_SOURCE_BYTES` (413 at ``source``)."""


class ScorerNameTaken(DomainError):
    """The owner already has a code reward or metric of that name (400 at ``name``)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"you already have a code reward or metric named {name!r}", path="name")


class ScorerImportInvalid(DomainError):
    """An import that holds no usable scorer (400 at the field that is wrong)."""


class TryError(DomainError):
    """A try request that cannot run (400); ``path`` names the field (``dataset``, ``rows``...)."""


class VersionNotFound(NotFound):
    """The scorer has no version of that number (404)."""

    def __init__(self, number: int) -> None:
        super().__init__(f"no such version: {number}")


class ScorerInUse(Conflict):
    """Runs use a version of the scorer, so it cannot be deleted (409)."""

    def __init__(self, runs: int) -> None:
        super().__init__(
            f"{runs} run(s) use this code reward; delete them before it (its versions stay "
            "so that every run can say which code scored it)"
        )


class ReferenceInvalid(DomainError):
    """A config entry naming a code reward that does not resolve (400 at its path); the runs
    app raises its own `RunConfigError` instead (`references.Refusal`)."""
