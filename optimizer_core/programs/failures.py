"""When failed predictions stop a `fit` or an `evaluate`: the failure rule.

One failed prediction is normal: it scores 0 and is counted under ``failures``
in the logs. A provider that cannot work (a refused key, a service that is down,
a model that never answers in the schema) fails every call, and scoring every
remaining row 0 would report a figure that means nothing, or train on nothing.
So a run of predictions that failed *because of the language model* (its call
raised a `LanguageModelError` after the model's own retries) stops the call with
the model's own error. A prediction that failed for the program's own reason
breaks no rule here: it is scored 0 and the call goes on.

`FailureRule` says when: after `consecutive` such failures in a row (10 by
default), and, with `whole_batch`, as soon as every row of a batch failed, however
few rows it holds (an evaluation of 8 rows on a dead provider then ends with its
error instead of a reward of 0). A refused key stops at once, whatever the rule:
no later call can succeed. Each `fit` or `evaluate` counts afresh
(`FailureCount`), over every batch it predicts: a fit's training batches, its
candidates' minibatches and its validation passes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from optimizer_core.exceptions import AuthenticationError, LanguageModelError


class FailedOrNot(Protocol):
    """One prediction: whether it failed (nothing to score) and the exception that failed it."""

    @property
    def failed(self) -> bool: ...

    exception: BaseException | None


@dataclasses.dataclass(frozen=True)
class FailureRule:
    """When predictions failing because of the language model stop `fit` or `evaluate`.

    Args:
        consecutive: stop once this many predictions in a row failed because of
            the model (default 10; None: never on a count).
        whole_batch: also stop when every row of one batch failed because of it,
            however few rows the batch holds (default False).

    Example:
        ```python
        # An evaluation that ends with the provider's error as soon as a whole
        # batch of it failed (the studio's evaluations do this).
        await program.evaluate(x, y, failure_rule=FailureRule(whole_batch=True))
        ```
    """

    consecutive: int | None = 10
    whole_batch: bool = False

    def __post_init__(self) -> None:
        if self.consecutive is not None and (
            not isinstance(self.consecutive, int)
            or isinstance(self.consecutive, bool)
            or self.consecutive < 1
        ):
            raise ValueError(
                f"`consecutive` must be None or a positive integer, got {self.consecutive!r}"
            )
        if not isinstance(self.whole_batch, bool):
            raise ValueError(f"`whole_batch` must be True or False, got {self.whole_batch!r}")

    def count(self) -> FailureCount:
        """A fresh count for one `fit` or `evaluate`."""
        return FailureCount(self)


class FailureCount:
    """The failures in a row of one `fit` or `evaluate`, checked against its rule.

    Args:
        rule: the rule to apply.
    """

    def __init__(self, rule: FailureRule) -> None:
        self.rule = rule
        self.in_a_row = 0

    def check(self, batch: Sequence[FailedOrNot]) -> None:
        """Count a batch's predictions, in row order; raise the model's error when the rule says.

        Raises:
            AuthenticationError: a prediction failed on a refused key.
            LanguageModelError: (its own type) the rule's count was reached, or the
                whole batch failed under ``whole_batch``.
        """
        last_cause: LanguageModelError | None = None
        for result in batch:
            cause = result.exception
            if not result.failed:
                self.in_a_row = 0
                continue
            self.in_a_row += 1
            if not isinstance(cause, LanguageModelError):
                continue
            if isinstance(cause, AuthenticationError):
                raise cause
            last_cause = cause
            if self.rule.consecutive is not None and self.in_a_row >= self.rule.consecutive:
                self._stop(cause)
        every_row_failed = bool(batch) and all(result.failed for result in batch)
        if self.rule.whole_batch and every_row_failed and last_cause is not None:
            self._stop(last_cause)

    def _stop(self, cause: LanguageModelError) -> None:
        count, self.in_a_row = self.in_a_row, 0
        raise type(cause)(
            f"{count} predictions in a row failed; last error: {cause}", model=cause.model
        ) from cause


__all__ = ["FailureCount", "FailureRule"]
