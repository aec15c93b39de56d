"""`Budget`: hard caps on what a run's models may spend, shared by all of them.

One `Budget` is given to every model of a run (the task model, the optimizer's
model, a judge, an embedding model): each request reserves one call from it
before it is sent, so with any concurrency no request starts past ``max_calls``
(retries are requests and count; cache hits send nothing and do not). Tokens and
cost are only known once an answer comes back, so they are checked against what
has been spent so far: a request starts while the spend is below the cap, and
the request that crosses a token or cost cap is the last to start (the requests
already in flight with it still finish and count). Past a cap every request
raises `BudgetExhausted`, which is not a `LanguageModelError`: no module turns
it into a failed sample, and `Trainer.fit` stops on it, keeping the best
variables found so far.

`hold` sets part of the caps aside (e.g. for the evaluation after training) and
`release` hands it back. `Budget.from_usage` starts a budget that has already
spent what a `Usage` snapshot records (a run that resumes after a lost worker).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from optimizer_core.exceptions import BudgetExhausted


class Budget:
    """Caps on requests, tokens and cost; ``None`` leaves a dimension uncapped.

    Thread-safe: a reservation is one locked check-and-increment.

    Args:
        max_calls: the most requests sent to a provider.
        max_tokens: prompt plus completion tokens, summed over requests.
        max_cost: US dollars, as the provider's prices give them.

    Example:
        ```python
        budget = Budget(max_calls=100)
        task_model.budget = judge.budget = budget
        ```
    """

    def __init__(
        self,
        *,
        max_calls: int | None = None,
        max_tokens: int | None = None,
        max_cost: float | None = None,
    ) -> None:
        for name, value in (("max_calls", max_calls), ("max_tokens", max_tokens)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise ValueError(f"`{name}` must be None or an int >= 0, got {value!r}")
        if max_cost is not None and (
            isinstance(max_cost, bool) or not isinstance(max_cost, int | float) or max_cost < 0
        ):
            raise ValueError(f"`max_cost` must be None or a number >= 0, got {max_cost!r}")
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.max_cost = None if max_cost is None else float(max_cost)
        self._lock = threading.Lock()
        self.calls = 0
        self.tokens = 0
        self.cost = 0.0
        self._held = (0, 0, 0.0)
        self.exhausted: str | None = None
        """Which cap stopped a request (``"calls"``, ``"tokens"``, ``"cost"``), or None."""

    @classmethod
    def from_usage(
        cls,
        usage: Mapping[str, Any],
        *,
        max_calls: int | None = None,
        max_tokens: int | None = None,
        max_cost: float | None = None,
    ) -> Budget:
        """A budget with these caps that has already spent what ``usage`` records.

        Args:
            usage: a `Usage.snapshot()` (or `Usage.combine` of several): requests
                sent are its calls less cache hits plus retries, tokens its
                ``total_tokens``, cost its ``cost``.

        Example:
            ```python
            budget = Budget.from_usage(stored_usage, max_calls=500)
            ```
        """
        budget = cls(max_calls=max_calls, max_tokens=max_tokens, max_cost=max_cost)
        budget.calls = max(
            0,
            int(usage.get("calls", 0))
            - int(usage.get("cached_calls", 0))
            + int(usage.get("retries", 0)),
        )
        budget.tokens = int(usage.get("total_tokens", 0))
        budget.cost = float(usage.get("cost", 0.0))
        return budget

    def _over(self) -> str | None:
        held_calls, held_tokens, held_cost = self._held
        if self.max_calls is not None and self.calls + held_calls >= self.max_calls:
            return "calls"
        if self.max_tokens is not None and self.tokens + held_tokens >= self.max_tokens:
            return "tokens"
        if self.max_cost is not None and self.cost + held_cost >= self.max_cost:
            return "cost"
        return None

    def reserve(self, model: str | None = None) -> None:
        """Take one request from the budget, or raise `BudgetExhausted` (nothing taken)."""
        with self._lock:
            over = self._over()
            if over is None:
                self.calls += 1
                return
            self.exhausted = over
        raise BudgetExhausted(over, self.snapshot(), model=model)

    def spend(self, *, tokens: int, cost: float) -> None:
        """Count what an answered request spent."""
        with self._lock:
            self.tokens += tokens
            self.cost += cost

    def hold(self, *, calls: int = 0, tokens: int = 0, cost: float = 0.0) -> None:
        """Set this much aside: requests are refused as if it were spent, until `release`."""
        with self._lock:
            self._held = (calls, tokens, cost)

    def release(self) -> None:
        """Make what `hold` set aside available again."""
        with self._lock:
            self._held = (0, 0, 0.0)

    def snapshot(self) -> dict[str, Any]:
        """Spend and caps, JSON-compatible."""
        return {
            "calls": self.calls,
            "tokens": self.tokens,
            "cost": self.cost,
            "max_calls": self.max_calls,
            "max_tokens": self.max_tokens,
            "max_cost": self.max_cost,
            "exhausted": self.exhausted,
        }

    def __repr__(self) -> str:
        return (
            f"Budget(calls={self.calls}/{self.max_calls}, tokens={self.tokens}/{self.max_tokens}, "
            f"cost={self.cost:.4f}/{self.max_cost})"
        )


__all__ = ["Budget", "BudgetExhausted"]
