"""The errors of program services (`studio.common.exceptions` draws the hierarchy)."""

from __future__ import annotations

from studio.common.exceptions import Conflict, DomainError, NotFound


class DocumentInvalid(DomainError, ValueError):
    """A program document that does not deserialise (400); ``errors`` locate each problem.

    Also a ``ValueError``, as it was before it was a domain error. Its text names
    every problem with its path (``<document>`` for the whole).
    """

    def describe(self) -> str:
        return "; ".join(f"{e.path or '<document>'}: {e.message}" for e in self.errors)


class ProgramNameTaken(DomainError):
    """The owner already has a program of that name (400, path ``name``): a field the
    request must change, as a unique field of a form would say."""

    def __init__(self, name: str) -> None:
        super().__init__(f"you already have a program named {name!r}", path="name")


class TryError(DomainError):
    """A try-it request that cannot run (400); ``path`` is ``version``, ``provider`` or
    ``input``."""


class VersionNotFound(NotFound):
    """The program has no version of that number (404)."""

    def __init__(self, number: int) -> None:
        super().__init__(f"no such version: {number}")


class ProgramInUse(Conflict):
    """Runs still use a version of the program, so it cannot be deleted (409)."""

    def __init__(self) -> None:
        super().__init__("this program has runs; delete them before the program")
