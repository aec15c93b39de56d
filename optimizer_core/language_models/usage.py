"""Accounting of language and embedding model calls: tokens, cost, latency, retries.

Every model owns a `Usage`. Each finished call (successful, failed or served
from the cache) appends one `CallRecord` and updates the aggregates, then calls
the registered listeners; callbacks and the studio read usage through them.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

UsageListener = Callable[["CallRecord"], object]

DEFAULT_MAX_RECORDS = 10_000


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
            self._retries = 0
            self._cached_calls = 0
            self._prompt_tokens = 0
            self._completion_tokens = 0
            self._cost = 0.0
            self._total_latency_s = 0.0
            self._in_flight = getattr(self, "_in_flight", 0)
            self._max_in_flight = self._in_flight

    # -- recording -----------------------------------------------------------

    def record(self, record: CallRecord) -> None:
        """Add a finished call and notify the listeners.

        A listener that raises is logged and skipped; it never fails the call.
        """
        with self._lock:
            self._records.append(record)
            self._calls += 1
            self._failures += 0 if record.ok else 1
            self._retries += record.retries
            self._cached_calls += 1 if record.cached else 0
            self._prompt_tokens += record.prompt_tokens
            self._completion_tokens += record.completion_tokens
            self._cost += record.cost
            self._total_latency_s += record.latency_s
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
                "retries": self._retries,
                "cached_calls": self._cached_calls,
                "prompt_tokens": self._prompt_tokens,
                "completion_tokens": self._completion_tokens,
                "total_tokens": self._prompt_tokens + self._completion_tokens,
                "cost": self._cost,
                "total_latency_s": self._total_latency_s,
                "mean_latency_s": self._total_latency_s / calls if calls else 0.0,
                "in_flight": self._in_flight,
                "max_in_flight": self._max_in_flight,
            }

    def __repr__(self) -> str:
        return (
            f"Usage(calls={self._calls}, failures={self._failures}, retries={self._retries}, "
            f"total_tokens={self.total_tokens}, cost={self._cost:.6f})"
        )
