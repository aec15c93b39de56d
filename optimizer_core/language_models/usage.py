"""Accounting of language and embedding model calls: tokens, cost, latency, retries.

Every model owns a `Usage`. Each finished call (successful, failed or served
from the cache) appends one `CallRecord` and updates the aggregates, then calls
the registered listeners; callbacks and the studio read usage through them.

A call's latency splits in two: the time it queued for a concurrency slot
(``queue_ms``: the model's own bound, not the provider, made it wait) and the
time its requests were with the provider (``provider_ms``). The bound itself
adapts to rate limits (`concurrency.ConcurrencyLimit`); its current value and
its changes are kept here too.

A snapshot (`Usage.snapshot`) is plain JSON, so what several models spent, or
one model between two moments, is arithmetic on snapshots: `Usage.combine`
(a run's task model, optimizer model, judge and embeddings, plus what earlier
attempts of the run stored) and `Usage.diff` (what one request or one chunk of
a batch spent). Both keep every summed figure and recompute the means.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

logger = logging.getLogger(__name__)

UsageListener = Callable[["CallRecord"], object]

SUMMED = (
    "calls",
    "failures",
    "retries",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cost",
    "total_latency_s",
    "total_queue_ms",
    "total_provider_ms",
)
"""The figures of a snapshot that add up across models and subtract between moments."""
_CONCURRENCY = ("concurrency_bound", "max_concurrency", "concurrency_history")

DEFAULT_MAX_RECORDS = 10_000
MAX_BOUND_CHANGES = 200
"""How many changes of the concurrency bound `Usage` keeps (the latest)."""


@dataclasses.dataclass(frozen=True)
class CallRecord:
    """One call to a model, as seen by the caller (all its attempts together).

    Attributes:
        model: the model name, e.g. ``"openai/gpt-4o-mini"``.
        started_at: wall-clock start, seconds since the epoch.
        latency_s: seconds from the call to its answer or final error, retries and
            backoff sleeps included.
        prompt_tokens: prompt tokens spent over all attempts (0 for a cached answer).
        completion_tokens: completion tokens spent over all attempts.
        cost: cost in US dollars as litellm prices it, 0.0 where it does not know
            the model.
        cached: whether the answer came from the on-disk cache without a request.
        ok: whether the call returned an answer.
        error: the final error's message when ``ok`` is false.
        attempts: requests made (1 when the first one succeeded, 0 for a cache hit).
        queue_ms: milliseconds spent waiting for a concurrency slot, over all attempts.
        provider_ms: milliseconds the requests were with the provider, over all
            attempts (``latency_s`` less queueing and backoff sleeps, roughly).
        finish_reason: why the provider stopped writing its last answer: ``"stop"``,
            ``"length"`` (cut at the request's ``max_tokens``: see `truncated`)...;
            None when it did not say or no answer came.
    """

    model: str
    started_at: float
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cached: bool = False
    ok: bool = True
    error: str | None = None
    attempts: int = 1
    queue_ms: float = 0.0
    provider_ms: float = 0.0
    finish_reason: str | None = None

    @property
    def truncated(self) -> bool:
        """Whether the last answer was cut at the request's ``max_tokens``."""
        return self.finish_reason == "length"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def retries(self) -> int:
        """Attempts beyond the first."""
        return max(self.attempts - 1, 0)

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-compatible dict."""
        return dataclasses.asdict(self)


class Usage:
    """Per-call records and exact running totals for one model.

    The record list keeps the last ``max_records`` calls; the aggregates count
    every call since creation (or the last `reset`). Safe to update from several
    threads.

    Args:
        max_records: how many recent `CallRecord`s to keep (default 10,000).

    Example:
        ```python
        lm.usage.add_listener(lambda record: print(record.latency_s, record.cost))
        await lm(messages)
        print(lm.usage.snapshot()["total_tokens"])
        ```
    """

    def __init__(self, *, max_records: int = DEFAULT_MAX_RECORDS) -> None:
        if max_records < 1:
            raise ValueError(f"`max_records` must be >= 1, got {max_records}")
        self._lock = threading.Lock()
        self._max_records = max_records
        self._listeners: list[UsageListener] = []
        self.reset()

    def reset(self) -> None:
        """Forget all records and zero the aggregates (listeners stay registered)."""
        with self._lock:
            self._records: collections.deque[CallRecord] = collections.deque(
                maxlen=self._max_records
            )
            self._calls = 0
            self._failures = 0
            self._truncated = 0
            self._retries = 0
            self._cached_calls = 0
            self._prompt_tokens = 0
            self._completion_tokens = 0
            self._cost = 0.0
            self._total_latency_s = 0.0
            self._total_queue_ms = 0.0
            self._total_provider_ms = 0.0
            self._in_flight = getattr(self, "_in_flight", 0)
            self._max_in_flight = self._in_flight
            bound: int | None = getattr(self, "_bound", None)
            self._bound = bound
            self._bound_max: int | None = getattr(self, "_bound_max", None)
            self._bound_history: collections.deque[dict[str, Any]] = collections.deque(
                maxlen=MAX_BOUND_CHANGES
            )
            if bound is not None:
                self._bound_history.append({"at": time.time(), "bound": bound, "reason": "reset"})

    # -- recording -----------------------------------------------------------

    def record(self, record: CallRecord) -> None:
        """Add a finished call and notify the listeners.

        A listener that raises is logged and skipped; it never fails the call.
        """
        with self._lock:
            self._records.append(record)
            self._calls += 1
            self._failures += 0 if record.ok else 1
            self._truncated += 1 if record.truncated else 0
            self._retries += record.retries
            self._cached_calls += 1 if record.cached else 0
            self._prompt_tokens += record.prompt_tokens
            self._completion_tokens += record.completion_tokens
            self._cost += record.cost
            self._total_latency_s += record.latency_s
            self._total_queue_ms += record.queue_ms
            self._total_provider_ms += record.provider_ms
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(record)
            except Exception:
                logger.warning("usage listener %r raised; ignored", listener, exc_info=True)

    def request_started(self) -> None:
        """Count one request going out (used for `in_flight` / `max_in_flight`)."""
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def request_finished(self) -> None:
        """Count one request coming back."""
        with self._lock:
            self._in_flight -= 1

    def concurrency_changed(self, bound: int, *, maximum: int, reason: str) -> None:
        """Note the model's bound on requests in flight (at start, and on each change).

        Args:
            bound: the bound now.
            maximum: the configured bound it never exceeds.
            reason: why it changed: ``"start"``, ``"rate limited"`` or ``"recovered"``.
        """
        with self._lock:
            self._bound = bound
            self._bound_max = maximum
            self._bound_history.append({"at": time.time(), "bound": bound, "reason": reason})

    # -- listeners -----------------------------------------------------------

    def add_listener(self, fn: UsageListener) -> None:
        """Call ``fn(record)`` after each finished call."""
        with self._lock:
            self._listeners.append(fn)

    def remove_listener(self, fn: UsageListener) -> None:
        """Stop calling ``fn``; a function that was never added is ignored."""
        with self._lock, contextlib.suppress(ValueError):
            self._listeners.remove(fn)

    # -- aggregates ----------------------------------------------------------

    @property
    def records(self) -> list[CallRecord]:
        """The most recent calls, oldest first (at most ``max_records``)."""
        with self._lock:
            return list(self._records)

    @property
    def calls(self) -> int:
        return self._calls

    @property
    def failures(self) -> int:
        return self._failures

    @property
    def truncated_calls(self) -> int:
        """Calls whose last answer was cut at its ``max_tokens`` (failed or not)."""
        return self._truncated

    @property
    def retries(self) -> int:
        return self._retries

    @property
    def cached_calls(self) -> int:
        return self._cached_calls

    @property
    def prompt_tokens(self) -> int:
        return self._prompt_tokens

    @property
    def completion_tokens(self) -> int:
        return self._completion_tokens

    @property
    def total_tokens(self) -> int:
        return self._prompt_tokens + self._completion_tokens

    @property
    def cost(self) -> float:
        return self._cost

    @property
    def total_latency_s(self) -> float:
        return self._total_latency_s

    @property
    def total_queue_ms(self) -> float:
        """Milliseconds calls waited for a concurrency slot, summed."""
        return self._total_queue_ms

    @property
    def total_provider_ms(self) -> float:
        """Milliseconds calls' requests were with the provider, summed."""
        return self._total_provider_ms

    @property
    def concurrency_bound(self) -> int | None:
        """The bound on requests in flight now (None before the model set one)."""
        return self._bound

    @property
    def concurrency_history(self) -> list[dict[str, Any]]:
        """The bound's latest changes, oldest first: ``{"at", "bound", "reason"}``."""
        with self._lock:
            return [dict(change) for change in self._bound_history]

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def max_in_flight(self) -> int:
        return self._max_in_flight

    def snapshot(self) -> dict[str, Any]:
        """The aggregates as a JSON-compatible dict."""
        with self._lock:
            calls = self._calls
            return {
                "calls": calls,
                "failures": self._failures,
                "truncated_calls": self._truncated,
                "retries": self._retries,
                "cached_calls": self._cached_calls,
                "prompt_tokens": self._prompt_tokens,
                "completion_tokens": self._completion_tokens,
                "total_tokens": self._prompt_tokens + self._completion_tokens,
                "cost": self._cost,
                "total_latency_s": self._total_latency_s,
                "mean_latency_s": self._total_latency_s / calls if calls else 0.0,
                "total_queue_ms": self._total_queue_ms,
                "total_provider_ms": self._total_provider_ms,
                "mean_queue_ms": self._total_queue_ms / calls if calls else 0.0,
                "mean_provider_ms": self._total_provider_ms / calls if calls else 0.0,
                "in_flight": self._in_flight,
                "max_in_flight": self._max_in_flight,
                "concurrency_bound": self._bound,
                "max_concurrency": self._bound_max,
                "concurrency_history": [dict(change) for change in self._bound_history],
            }

    @staticmethod
    def combine(*snapshots: Mapping[str, Any]) -> dict[str, Any]:
        """Several snapshots (or stored combinations) as one.

        The figures of `SUMMED` and ``in_flight`` add up, ``max_in_flight`` is the
        largest, the means are over every call; the concurrency bound, its maximum
        and history are the first snapshot's that has them (pass the model whose
        bound matters first). A missing figure counts as 0.

        Example:
            ```python
            run_usage = Usage.combine(task_model.usage.snapshot(), judge.usage.snapshot())
            ```
        """
        total: dict[str, Any] = {
            key: sum(snapshot.get(key, 0) for snapshot in snapshots) for key in SUMMED
        }
        total["cost"] = float(total["cost"])
        total["in_flight"] = sum(int(snapshot.get("in_flight", 0)) for snapshot in snapshots)
        total["max_in_flight"] = max(
            (int(snapshot.get("max_in_flight", 0)) for snapshot in snapshots), default=0
        )
        source = next((s for s in snapshots if any(key in s for key in _CONCURRENCY)), {})
        for key in _CONCURRENCY:
            total[key] = source.get(key, [] if key == "concurrency_history" else None)
        return _with_means(total)

    @staticmethod
    def diff(after: Mapping[str, Any], before: Mapping[str, Any]) -> dict[str, Any]:
        """What was spent between two snapshots of one model (``before`` taken first).

        The figures of `SUMMED` subtract, the means are over the calls in between;
        ``in_flight``, ``max_in_flight`` and the concurrency figures are ``after``'s.

        Example:
            ```python
            before = lm.usage.snapshot()
            await program.trace(x)
            spent = Usage.diff(lm.usage.snapshot(), before)
            ```
        """
        spent: dict[str, Any] = {key: after.get(key, 0) - before.get(key, 0) for key in SUMMED}
        spent["cost"] = float(spent["cost"])
        spent["in_flight"] = int(after.get("in_flight", 0))
        spent["max_in_flight"] = int(after.get("max_in_flight", 0))
        for key in _CONCURRENCY:
            spent[key] = after.get(key, [] if key == "concurrency_history" else None)
        return _with_means(spent)

    def __repr__(self) -> str:
        return (
            f"Usage(calls={self._calls}, failures={self._failures}, retries={self._retries}, "
            f"total_tokens={self.total_tokens}, cost={self._cost:.6f})"
        )


def _with_means(figures: dict[str, Any]) -> dict[str, Any]:
    calls = figures["calls"]
    figures["mean_latency_s"] = figures["total_latency_s"] / calls if calls else 0.0
    figures["mean_queue_ms"] = figures["total_queue_ms"] / calls if calls else 0.0
    figures["mean_provider_ms"] = figures["total_provider_ms"] / calls if calls else 0.0
    return figures
