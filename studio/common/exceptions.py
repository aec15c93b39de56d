"""The domain errors services raise, each with the HTTP status it answers.

Services know nothing of HTTP; they raise a `DomainError` that says what went
wrong and where (``errors``: ``[FieldError(path, message)]``), and its class
says what kind of failure it is (``status``). One handler,
`studio.common.errors.exception_handler`, turns any of them into a response,
so views neither catch nor translate them. Each app declares its own in its
``exceptions.py``, on these bases::

    Exception
     └── DomainError              400  a request the service cannot honour
          ├── NotFound            404  what it names does not exist (a version number)
          ├── Conflict            409  it clashes with stored state (in use, finished)
          └── TooLarge            413  it is larger than a configured limit

Example:
    ```python
    raise DatasetError("`limit` must be an int >= 1, got 0", path="limit")  # 400
    raise DocumentInvalid([FieldError("program.inputs", "..."), ...])       # 400, many
    ```
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from django.core.exceptions import ValidationError as DjangoValidationError


@dataclass(frozen=True)
class FieldError:
    """One problem: a dotted / indexed ``path`` to its field (empty: the whole) and a message."""

    path: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


class DomainError(Exception):
    """A request a service cannot honour; `errors` locate each problem.

    Args:
        errors: one message, or the problems as `FieldError`s (at least one).
        path: the field of a single message (default ``""``: the request as a whole).
    """

    status: ClassVar[int] = 400

    def __init__(self, errors: str | Iterable[FieldError], *, path: str = "") -> None:
        self.errors: list[FieldError] = (
            [FieldError(path, errors)] if isinstance(errors, str) else list(errors)
        )
        if not self.errors:
            raise ValueError("`errors` must hold at least one problem, got none")
        super().__init__(self.describe())

    def describe(self) -> str:
        """The text of the error (what ``str()`` gives): the message, or each path: message."""
        if len(self.errors) == 1:
            return self.errors[0].message
        return "; ".join(f"{e.path}: {e.message}" if e.path else e.message for e in self.errors)

    def by_path(self) -> dict[str, list[str]]:
        """The messages grouped by path, in order (``""``: the request as a whole)."""
        grouped: dict[str, list[str]] = {}
        for problem in self.errors:
            grouped.setdefault(problem.path, []).append(problem.message)
        return grouped

    @property
    def path(self) -> str:
        """The path of the first problem (``""``: the request as a whole)."""
        return self.errors[0].path

    @classmethod
    def from_django(cls, error: DjangoValidationError) -> DomainError:
        """A Django `ValidationError` (keyed by field path, or not keyed) as this class."""
        if hasattr(error, "error_dict"):
            found = [
                FieldError("" if key == "__all__" else key, message)
                for key, messages in error.message_dict.items()
                for message in messages
            ]
        else:
            found = [FieldError("", message) for message in error.messages]
        return cls(found)


class NotFound(DomainError):
    """What the request names does not exist (beyond the row of its URL, which DRF answers)."""

    status = 404


class Conflict(DomainError):
    """The request clashes with stored state: the row is in use, or already finished."""

    status = 409


class TooLarge(DomainError):
    """The request is larger than a configured limit."""

    status = 413
