"""The errors of run services (`studio.common.exceptions` draws the hierarchy).

A refused run configuration is a Django ``ValidationError`` keyed by the dotted
path of the field (`studio.runs.config`, also what the worker checks a stored
run with), which the exception handler answers as a 400 like a `DomainError`.
"""

from __future__ import annotations

from studio.common.exceptions import Conflict


class InvalidTransition(Conflict):
    """A state change the run's lifecycle does not allow, or that lost a race (409,
    path ``state``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, path="state")
