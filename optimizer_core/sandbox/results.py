"""`RowResult`: what user code said about one row: its score, feedback, error and prints."""

from __future__ import annotations

import dataclasses

__all__ = ["RowResult"]


@dataclasses.dataclass(frozen=True)
class RowResult:
    """One row scored by user code in the sandbox.

    Attributes:
        score: what the function returned, checked (a finite number, in [0, 1]
            for a bounded function); 0.0 when the row failed.
        feedback: the text returned beside the score (``return score, "why"``), or None.
        error: why the row failed (``"KeyError: 'answer' (line 2)"``,
            ``"timed out after 2 s of CPU time"``), or None when it did not.
        output: what the code printed while scoring the row (cut at the limit).
    """

    score: float = 0.0
    feedback: str | None = None
    error: str | None = None
    output: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None

    @classmethod
    def failed(cls, error: str, output: str = "") -> RowResult:
        return cls(score=0.0, error=error, output=output)
