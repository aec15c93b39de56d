"""Exceptions raised by optimizer_core.

The hierarchy::

    OptimizerCoreError
    ├── ProgramError                 a graph that cannot be built or run
    │   └── GraphDisconnectedError   an output does not depend on the inputs
    ├── DataError                    data that does not fit the program
    ├── SerializationError           a file or config that cannot be read back
    ├── RewardError                  a reward or metric returned a non-number
    └── LanguageModelError           a call to a language or embedding model failed
        ├── LanguageModelTimeout
        ├── RateLimitError           HTTP 429; carries ``retry_after``
        ├── ServerError              HTTP 5xx
        ├── InvalidResponseError     the answer was not valid JSON for the schema
        └── AuthenticationError      bad key: never retried

Argument validation raises the built-in ``ValueError`` / ``TypeError`` with the
argument named in the message.
"""

from __future__ import annotations


class OptimizerCoreError(Exception):
    """Base class of every error this library raises on purpose."""


class ProgramError(OptimizerCoreError):
    """A program whose graph cannot be built or run."""


class GraphDisconnectedError(ProgramError):
    """An output of a program cannot be reached from its inputs."""


class DataError(OptimizerCoreError, ValueError):
    """Data that does not fit the program (wrong model, empty, bad split)."""


class SerializationError(OptimizerCoreError, ValueError):
    """A saved file or a config that cannot be turned back into objects."""


class RewardError(OptimizerCoreError, TypeError):
    """A reward or metric function returned something that is not a number."""


class LanguageModelError(OptimizerCoreError):
    """A call to a language or embedding model failed (after retries)."""

    retryable: bool = False

    def __init__(self, message: str, *, model: str | None = None) -> None:
        super().__init__(message)
        self.model = model


class LanguageModelTimeout(LanguageModelError):
    """The provider did not answer in time."""

    retryable = True


class RateLimitError(LanguageModelError):
    """HTTP 429. ``retry_after`` holds the server's Retry-After in seconds, if any."""

    retryable = True

    def __init__(
        self, message: str, *, model: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, model=model)
        self.retry_after = retry_after


class ServerError(LanguageModelError):
    """HTTP 5xx from the provider."""

    retryable = True


class InvalidResponseError(LanguageModelError):
    """The answer was not valid JSON, or did not match the requested schema."""

    retryable = True


class AuthenticationError(LanguageModelError):
    """The provider refused the credentials. Retrying cannot help."""
