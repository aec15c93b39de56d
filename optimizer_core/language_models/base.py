"""What language and embedding models share: retries, concurrency, timeouts, accounting.

A concrete model supplies a transport (one request, no retries); `ModelBase`
wraps every request in the same path, so the scripted fakes exercise the real
retry, parsing and accounting code.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import random
import re
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Protocol, TypeVar

from optimizer_core.exceptions import (
    AuthenticationError,
    InvalidResponseError,
    LanguageModelError,
    LanguageModelTimeout,
    RateLimitError,
    ServerError,
)
from optimizer_core.language_models.usage import CallRecord, Usage

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R", bound="Spend")

_PUBLIC_ERRORS: tuple[type[LanguageModelError], ...] = (
    LanguageModelTimeout,
    RateLimitError,
    ServerError,
    InvalidResponseError,
    AuthenticationError,
)

# Longest Retry-After waited for (unless backoff_max is longer); beyond it the call fails
# rather than hang, e.g. on a daily quota.
_LONGEST_RETRY_AFTER_S = 60.0

# litellm keyword arguments that may carry credentials: never in a config or a cache key.
_SECRET_NAME = re.compile(r"key|secret|token|password|credential|authori[sz]ation|headers", re.I)


def _seconds(value: float | None) -> str:
    """``60``, ``59.9``, ``0.25``: seconds for a message."""
    value = value or 0.0
    return f"{value:.2g}" if value < 1 else f"{value:.1f}".removesuffix(".0")


class _Budget:
    """The seconds a call has left: attempts and backoff waits spend it, slot queueing does not.

    Queueing is left out so a large batch behind a slow but healthy provider does
    not fail calls that never got to send; each attempt is still bounded by `timeout`.
    """

    def __init__(self, total: float | None) -> None:
        self.total = total
        self.spent = 0.0

    def left(self) -> float:
        return math.inf if self.total is None else self.total - self.spent

    def spend(self, seconds: float) -> None:
        self.spent += seconds


class Spend(Protocol):
    """What one transport attempt reports for accounting."""

    @property
    def prompt_tokens(self) -> int: ...

    @property
    def completion_tokens(self) -> int: ...

    @property
    def cost(self) -> float: ...


def public_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The extra provider arguments that are safe to save: no secrets, JSON-compatible."""
    kept: dict[str, Any] = {}
    for name, value in kwargs.items():
        if _SECRET_NAME.search(name):
            continue
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            logger.debug("argument %r is not JSON-compatible; left out of the config", name)
            continue
        kept[name] = value
    return kept


class ModelBase:
    """Shared machinery of `LanguageModel` and `EmbeddingModel`.

    Args:
        model: the litellm model name, ``"provider/name"``.
        api_base: base URL of the provider's API (default: the provider's).
        api_key: the provider key (default: the provider's environment variable).
            Never saved in a config, never logged.
        timeout: seconds one request (one attempt) may take (default depends on the class).
        total_timeout: seconds one call may take, every attempt and backoff wait
            included (time spent queueing for a concurrency slot is not counted);
            ``None`` for no bound but ``timeout`` per attempt. When it runs out the
            call fails with `LanguageModelTimeout`, "... did not answer within N s".
        max_retries: retries after the first attempt on transient errors (default 5).
        backoff_base: first backoff ceiling in seconds; attempt ``n`` waits a
            uniformly random time in ``[0, backoff_base * 2**n]`` (full jitter).
        backoff_max: the most any backoff waits (default 30). A server's
            Retry-After is always waited for in full, up to max(backoff_max, 60 s);
            a longer one fails the call at once instead of hanging.
        max_concurrency: requests in flight at once per model instance (default 16 for
            language models, 8 for embedding models).
        cache_dir: directory of the on-disk answer cache; ``None`` disables it.
        **litellm_kwargs: passed to litellm on every request.

    Attributes:
        usage: the `Usage` accounting of every call.
        last_error: the error the latest failed call raised (None before any), for a
            caller that only sees a failed sample and wants the model's reason.
    """

    _kind: ClassVar[str] = "model"

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None,
        api_key: str | None,
        timeout: float,
        total_timeout: float | None,
        max_retries: int,
        backoff_base: float,
        backoff_max: float,
        max_concurrency: int,
        cache_dir: str | os.PathLike[str] | None,
        litellm_kwargs: dict[str, Any],
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"`model` must be a non-empty string, got {model!r}")
        if timeout <= 0:
            raise ValueError(f"`timeout` must be > 0, got {timeout}")
        if total_timeout is not None and (
            isinstance(total_timeout, bool)
            or not isinstance(total_timeout, int | float)
            or total_timeout <= 0
        ):
            raise ValueError(f"`total_timeout` must be None or > 0, got {total_timeout!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"`max_retries` must be an int >= 0, got {max_retries!r}")
        if backoff_base < 0:
            raise ValueError(f"`backoff_base` must be >= 0, got {backoff_base}")
        if backoff_max < 0:
            raise ValueError(f"`backoff_max` must be >= 0, got {backoff_max}")
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"`max_concurrency` must be an int >= 1, got {max_concurrency!r}")
        for reserved in ("model", "messages", "input", "num_retries", "max_retries"):
            if reserved in litellm_kwargs:
                raise ValueError(
                    f"`{reserved}` cannot be passed as an extra litellm argument: "
                    "it is set by the model itself"
                )
        self.model = model
        self.api_base = api_base
        self._api_key = api_key
        self.timeout = float(timeout)
        self.total_timeout = None if total_timeout is None else float(total_timeout)
        self.max_retries = max_retries
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.max_concurrency = max_concurrency
        self.cache_dir = None if cache_dir is None else os.fspath(cache_dir)
        self.litellm_kwargs = dict(litellm_kwargs)
        self.usage = Usage()
        self.last_error: LanguageModelError | None = None
        self._semaphores: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()

    @property
    def api_key(self) -> str | None:
        """The configured key (read-only; never part of `get_config` or `repr`)."""
        return self._api_key

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"

    # -- concurrency ---------------------------------------------------------

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = asyncio.Semaphore(self.max_concurrency)
            self._semaphores[loop] = semaphore
        return semaphore

    async def _send_in_slot(self, send: Callable[[], Awaitable[R]], budget: _Budget) -> R:
        """One request, holding a concurrency slot, bounded by `timeout` and the call's budget."""
        async with self._semaphore():
            limit = min(self.timeout, budget.left())
            if limit <= 0:
                # The slot came too late: the call's budget ran out in an earlier attempt.
                raise LanguageModelTimeout("no time left for another attempt", model=self.model)
            self.usage.request_started()
            clock = time.perf_counter()
            try:
                async with asyncio.timeout(limit):
                    return await send()
            except TimeoutError as error:
                raise LanguageModelTimeout(
                    f"no answer within {_seconds(limit)} s", model=self.model
                ) from error
            finally:
                budget.spend(time.perf_counter() - clock)
                self.usage.request_finished()

    # -- retries -------------------------------------------------------------

    async def _prepare(self) -> None:
        """Get the transport ready before the first request (e.g. import litellm).

        Runs outside the concurrency slot and the timeout, and is not counted
        in the call's latency.
        """

    def _backoff_delay(self, retry_index: int, error: LanguageModelError) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * (2.0**retry_index))
        delay = random.uniform(0.0, ceiling)
        if isinstance(error, RateLimitError) and error.retry_after is not None:
            delay = max(delay, error.retry_after)
        return delay

    def _retry_after_too_long(self, error: LanguageModelError) -> bool:
        """A Retry-After beyond max(backoff_max, 60 s) is not waited for: the call fails."""
        return (
            isinstance(error, RateLimitError)
            and error.retry_after is not None
            and error.retry_after > max(self.backoff_max, _LONGEST_RETRY_AFTER_S)
        )

    def _final_error(
        self,
        error: LanguageModelError,
        attempts: int,
        *,
        too_long: bool = False,
        out_of_time: bool = False,
    ) -> LanguageModelError:
        plural = "s" if attempts != 1 else ""
        if out_of_time:
            # The budget of the whole call ran out: say so first, the last error after.
            within = _seconds(self.total_timeout)
            return LanguageModelTimeout(
                f"{self._kind} {self.model!r} did not answer within {within} s "
                f"({attempts} attempt{plural}; last error: {error})",
                model=self.model,
            )
        if too_long:
            retry_after = error.retry_after if isinstance(error, RateLimitError) else None
            note = (
                f"the server asked to wait {retry_after:g}s, longer than this model waits; "
                f"{attempts} attempt{plural}"
            )
        elif error.retryable:
            note = f"gave up after {attempts} attempt{plural}"
        else:
            note = f"not retryable; {attempts} attempt{plural}"
        message = f"{self._kind} {self.model!r} failed: {error} ({note})"
        final: LanguageModelError
        if isinstance(error, RateLimitError):
            final = RateLimitError(message, model=self.model, retry_after=error.retry_after)
        else:
            cls = next((c for c in _PUBLIC_ERRORS if isinstance(error, c)), LanguageModelError)
            final = cls(message, model=self.model)
        if final.retryable != error.retryable:
            final.retryable = error.retryable
        return final

    async def _call_with_retries(
        self,
        send: Callable[[], Awaitable[R]],
        finish: Callable[[R], T],
        *,
        adapt: Callable[[LanguageModelError], bool] | None = None,
    ) -> T:
        """Send, check, retry; record one `CallRecord` for the whole call.

        Args:
            send: makes one request and returns the raw answer with its spend.
            finish: turns a raw answer into the result; raises
                `InvalidResponseError` for an unusable one (retried).
            adapt: called on each error; returning True means the request was
                changed to avoid it and is resent at once without using a retry.
        """
        await self._prepare()
        started_at = time.time()
        clock = time.perf_counter()
        budget = _Budget(self.total_timeout)
        attempts = retries = prompt_tokens = completion_tokens = 0
        cost = 0.0

        def record(ok: bool, error: str | None) -> None:
            self.usage.record(
                CallRecord(
                    model=self.model,
                    started_at=started_at,
                    latency_s=time.perf_counter() - clock,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                    cost=cost,
                    cached=False,
                    ok=ok,
                    error=error,
                    attempts=attempts,
                )
            )

        while True:
            attempts += 1
            try:
                raw = await self._send_in_slot(send, budget)
                prompt_tokens += raw.prompt_tokens
                completion_tokens += raw.completion_tokens
                cost += raw.cost
                result = finish(raw)
            except LanguageModelError as error:
                if adapt is not None and adapt(error):
                    continue
                too_long = self._retry_after_too_long(error)
                give_up = not error.retryable or retries >= self.max_retries or too_long
                delay = 0.0 if give_up else self._backoff_delay(retries, error)
                # A retry that could not start before the budget runs out is not tried.
                out_of_time = not give_up and budget.left() <= delay
                if give_up or out_of_time:
                    final = self._final_error(
                        error, attempts, too_long=too_long, out_of_time=out_of_time
                    )
                    record(False, str(final))
                    self.last_error = final
                    raise final from error
                retries += 1
                logger.debug(
                    "%s: %s; retry %d/%d in %.3fs",
                    self.model,
                    error,
                    retries,
                    self.max_retries,
                    delay,
                )
                try:
                    await asyncio.sleep(delay)
                    budget.spend(delay)
                except BaseException:
                    record(False, f"cancelled while backing off after: {error}")
                    raise
                continue
            except BaseException as error:
                record(False, f"{type(error).__name__}: {error}")
                raise
            record(True, None)
            return result

    def _record_cached(self, *, started_at: float, latency_s: float) -> None:
        """Account a call answered from a cache, without any request."""
        self.usage.record(
            CallRecord(
                model=self.model,
                started_at=started_at,
                latency_s=latency_s,
                cached=True,
                ok=True,
                attempts=0,
            )
        )

    # -- config ---------------------------------------------------------------

    def _base_config(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "api_base": self.api_base,
            "timeout": self.timeout,
            "total_timeout": self.total_timeout,
            "max_retries": self.max_retries,
            "backoff_base": self.backoff_base,
            "backoff_max": self.backoff_max,
            "max_concurrency": self.max_concurrency,
            "cache_dir": self.cache_dir,
        }
