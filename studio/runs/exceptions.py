"""The errors of run services (`studio.common.exceptions` draws the hierarchy).

A refused run configuration is a `RunConfigError` at the dotted path of the field
(`studio.runs.config`, also what the worker checks a stored run with), answered
as a 400 by the one exception handler.
"""

from __future__ import annotations

from studio.common.exceptions import Conflict, DomainError


class InvalidTransition(Conflict):
    """A state change the run's lifecycle does not allow, or that lost a race (409,
    path ``state``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, path="state")


class RunConfigError(DomainError):
    """A run the studio will not start: a refused configuration, a dataset or provider
    it cannot use, a checkpoint it does not have (400, at the field's dotted path)."""
