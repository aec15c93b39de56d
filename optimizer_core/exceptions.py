"""Exceptions raised by optimizer_core.

The hierarchy::

    OptimizerCoreError
    ├── ProgramError                 a graph that cannot be built or run
    │   └── GraphDisconnectedError   an output does not depend on the inputs
    ├── DataError                    data that does not fit the program
    ├── SerializationError           a file or config that cannot be read back;
    │   │                            ``path`` says where (``variables.generator/state``)
    │   └── RefusedObjectError       (saving) safe mode refused a name
    ├── RewardError                  a reward or metric returned a non-number
    │   └── UserCodeError            (sandbox) user code failed on every row of a
    │                                batch, or could not be loaded
    ├── SandboxError                 (sandbox) the sandbox for user code could not be
    │                                found, checked or started
    ├── LocalModelError              (local_models) the bundled model's server could not
    │                                be found, started or stopped
    ├── BudgetExhausted              a run's `Budget` refused a request (a cap was reached)
    └── LanguageModelError           a call to a language or embedding model failed
        ├── LanguageModelTimeout
        ├── RateLimitError           HTTP 429; carries ``retry_after``
        ├── ServerError              HTTP 5xx
        ├── InvalidResponseError     the answer was not valid JSON for the schema
        │   └── TruncatedResponseError   it was cut at its ``max_tokens``: not retried
        ├── AuthenticationError      bad key: never retried
        └── RequestRefused           the model's request policy refused the destination
                                     (loopback, private, metadata...): never retried

Argument validation raises the built-in ``ValueError`` / ``TypeError`` with the
argument named in backticks in the message (``"`temperature` must be >= 0"``).
When such an error stops a saved object being rebuilt, `deserialize_object`
raises a `SerializationError` from it whose ``path`` names the argument
(``config.temperature``).
"""

from __future__ import annotations

from typing import Any


class OptimizerCoreError(Exception):
    """Base class of every error this library raises on purpose."""


class ProgramError(OptimizerCoreError):
    """A program whose graph cannot be built or run."""


class GraphDisconnectedError(ProgramError):
    """An output of a program cannot be reached from its inputs."""


class DataError(OptimizerCoreError, ValueError):
    """Data that does not fit the program (wrong model, empty, bad split)."""


class SerializationError(OptimizerCoreError, ValueError):
    """A saved file or a config that cannot be turned back into objects.

    The error says where the problem is, so a caller can point at it without
    reading the message: ``path`` is a dotted / indexed path into what was being
    read (``"variables.generator/state"``,
    ``"program.modules[1].module.config.temperature"``), relative to the object
    the failing call was given (`Program.from_json`'s document,
    `deserialize_object`'s serialised dict).

    Args:
        message: the whole message.
        path: where the problem is; ``""`` for the whole of what was read.
            Defaults to the first of `paths`.
        paths: every place the problem concerns, when there are several (three
            unknown variables); defaults to ``[path]``.
        reason: the message without its location (what to show beside `path`);
            defaults to `message`.
        config: the serialised dict that was being rebuilt, so an enclosing call
            can locate it (see `saving.locate`).

    Example:
        ```python
        try:
            program = Program.from_json(document)
        except SerializationError as error:
            print(error.path, error.reason)  # variables.ghost/state  no module ...
        ```
    """

    def __init__(
        self,
        message: str,
        *,
        path: str = "",
        paths: list[str] | None = None,
        reason: str | None = None,
        config: Any = None,
    ) -> None:
        super().__init__(message)
        self.paths: list[str] = list(paths) if paths else ([path] if path else [])
        self.path = path or (self.paths[0] if self.paths else "")
        self.reason = message if reason is None else reason
        self.config = config

    def within(self, prefix: str) -> SerializationError:
        """The same error, its paths now relative to an enclosing object (changed in place).

        ``prefix`` is where the object that was being read sits in the enclosing
        one: an error at ``config.temperature`` inside ``modules[1].module`` is at
        ``modules[1].module.config.temperature``.
        """
        self.paths = [join_path(prefix, p) for p in self.paths]
        self.path = join_path(prefix, self.path)
        if not self.paths:
            self.paths = [self.path] if self.path else []
        return self


def join_path(prefix: str, path: str) -> str:
    """``join_path("program", "modules[1]")`` is ``program.modules[1]``; empty parts vanish."""
    if not prefix:
        return path
    if not path:
        return prefix
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


class RewardError(OptimizerCoreError, TypeError):
    """A reward or metric function returned something that is not a number."""


class UserCodeError(RewardError):
    """User code in the sandbox (a code reward or metric) cannot score: the run stops.

    Raised when the code cannot be loaded (a syntax error, no such function, an
    error or time-out while its module runs), or when it fails on every row of a
    batch; a single failing row scores 0 instead (see `optimizer_core.sandbox`).
    The message names the function and the first row's error, e.g.
    ``the code of 'within' failed on every row of a batch of 8: KeyError: 'answer' (line 2)``.
    """


class SandboxError(OptimizerCoreError):
    """The sandbox for user code could not be found, checked or started (an install problem)."""


class LocalModelError(OptimizerCoreError):
    """The local model server could not be found, started or stopped."""


class BudgetExhausted(OptimizerCoreError):
    """A `Budget` cap was reached: no more requests start (not a `LanguageModelError`).

    Attributes:
        cap: ``"calls"``, ``"tokens"`` or ``"cost"``.
        spent: the budget's snapshot when it refused.
    """

    def __init__(self, cap: str, spent: dict[str, Any], *, model: str | None = None) -> None:
        limit = spent.get(f"max_{cap}")
        super().__init__(f"budget spent: the run's cap of {limit} {cap} was reached")
        self.cap = cap
        self.spent = spent
        self.model = model


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


class TruncatedResponseError(InvalidResponseError):
    """The answer reached its token bound (``finish_reason`` "length") before it was complete.

    Not retried: the same request runs into the same bound, and each try costs the
    whole bound's generation. ``max_tokens`` holds the bound the request carried.
    """

    retryable = False

    def __init__(
        self, message: str, *, model: str | None = None, max_tokens: int | None = None
    ) -> None:
        super().__init__(message, model=model)
        self.max_tokens = max_tokens


class AuthenticationError(LanguageModelError):
    """The provider refused the credentials. Retrying cannot help."""


class RequestRefused(LanguageModelError):
    """The model's `RequestPolicy` refused where a request would go; nothing was sent there.

    Never retried. The message names the destination, why it is refused and, where an
    allow-list entry would admit it, what to allow.

    Attributes:
        url: the URL refused ("" when it was a connection the transport opened).
        reason: why, without the advice (``"127.0.0.1:9 is a loopback address ..."``).
        allow_entry: the allow-list entry that would admit it (``"127.0.0.1:9"``); ""
            where none would (the server's own endpoint, a URL that is not http(s)).
    """

    def __init__(
        self,
        message: str,
        *,
        model: str | None = None,
        url: str = "",
        reason: str = "",
        allow_entry: str = "",
    ) -> None:
        super().__init__(message, model=model)
        self.url = url
        self.reason = reason or message
        self.allow_entry = allow_entry
