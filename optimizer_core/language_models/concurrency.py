"""How many requests a model sends at once: a bound that backs off on rate limits (AIMD).

The bound starts at the model's ``max_concurrency``. A rate-limited request (HTTP
429) halves it, once per episode: the 429s of requests sent before the last
decrease do not halve it again, so a burst of 429s from one round of requests
counts once. Each success at the current bound counts towards raising it by one,
after as many successes as the bound itself (one round's worth, as TCP grows its
window), never above ``max_concurrency``. Every change is reported to the model's
`Usage` (the bound and its history).

Slots are per event loop (an asyncio future belongs to one loop); the bound is
shared by all of them, since it describes the provider, not the loop.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
import time
import weakref
from types import TracebackType

from optimizer_core.language_models.usage import Usage


class ConcurrencyLimit:
    """The adaptive bound on a model's requests in flight, and its per-loop slots.

    Args:
        maximum: the configured bound (``max_concurrency``); the bound never exceeds it.
        usage: where changes of the bound are recorded.

    Example:
        ```python
        limit = ConcurrencyLimit(16, usage=Usage())
        async with limit.slot():
            ...  # one request
        ```
    """

    def __init__(self, maximum: int, *, usage: Usage) -> None:
        if maximum < 1:
            raise ValueError(f"`maximum` must be >= 1, got {maximum}")
        self.maximum = maximum
        self.bound = maximum
        self._usage = usage
        self._lock = threading.Lock()
        self._successes = 0
        self._decreased_at = -float("inf")
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gate]
        self._gates = weakref.WeakKeyDictionary()
        usage.concurrency_changed(self.bound, maximum=maximum, reason="start")

    def slot(self) -> _Slot:
        """An async context manager holding one slot of the running loop for its body."""
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = _Gate(self)
        return _Slot(gate)

    def rate_limited(self, sent_at: float) -> None:
        """A request sent at ``sent_at`` (``time.perf_counter()``) got HTTP 429: halve the bound.

        A request sent before the last decrease belongs to the episode that
        decrease answered, and changes nothing.
        """
        with self._lock:
            self._successes = 0
            if sent_at < self._decreased_at or self.bound == 1:
                return
            self.bound = max(1, self.bound // 2)
            self._decreased_at = time.perf_counter()
            bound = self.bound
        self._usage.concurrency_changed(bound, maximum=self.maximum, reason="rate limited")

    def succeeded(self) -> None:
        """A request was answered: after ``bound`` of them in a row, raise the bound by one."""
        if self.bound >= self.maximum:
            return
        with self._lock:
            self._successes += 1
            if self._successes < self.bound or self.bound >= self.maximum:
                return
            self._successes = 0
            self.bound += 1
            bound = self.bound
        self._usage.concurrency_changed(bound, maximum=self.maximum, reason="recovered")
        try:
            gate = self._gates.get(asyncio.get_running_loop())
        except RuntimeError:  # called outside a loop: nobody waits here
            return
        if gate is not None:
            gate.wake()  # other loops' waiters get the new slot at their next release


class _Gate:
    """The slots of one event loop: requests in flight and the requests waiting, in order."""

    def __init__(self, limit: ConcurrencyLimit) -> None:
        self._limit = limit
        self.in_flight = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    async def acquire(self) -> None:
        if self.in_flight < self._limit.bound and not self._waiters:
            self.in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.release()  # granted while being cancelled: hand the slot on
            else:
                with contextlib.suppress(ValueError):  # wake() may have dropped it already
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        self.in_flight -= 1
        self.wake()

    def wake(self) -> None:
        """Grant slots to waiters, first come first served, while the bound allows."""
        while self._waiters and self.in_flight < self._limit.bound:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)


class _Slot:
    __slots__ = ("_gate",)

    def __init__(self, gate: _Gate) -> None:
        self._gate = gate

    async def __aenter__(self) -> None:
        await self._gate.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._gate.release()
