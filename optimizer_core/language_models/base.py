"""What language and embedding models share: retries, concurrency, timeouts, accounting.

Every request of every model takes one path, `ModelBase._call`, which reads top
to bottom: build the request, wait for a concurrency slot, send it through the
transport within the time allowed, turn the response into the answer (the one
place answers are checked), retry transient errors after a backoff, record one
`CallRecord`. A concrete model supplies those steps (`_request`, `_transport`,
`_answer`, and `_adapt` for a request that can be changed to avoid an error); the
scripted fakes replace only `_transport`, so tests exercise the real path.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import math
import os
import random
import re
import time
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from optimizer_core.exceptions import (
    AuthenticationError,
    InvalidResponseError,
    LanguageModelError,
    LanguageModelTimeout,
    RateLimitError,
    RequestRefused,
    ServerError,
    TruncatedResponseError,
)
from optimizer_core.language_models import _litellm
from optimizer_core.language_models.budget import Budget
from optimizer_core.language_models.concurrency import ConcurrencyLimit
from optimizer_core.language_models.request_policy import RequestPolicy, default_policy, enforced
from optimizer_core.language_models.usage import CallRecord, Usage

logger = logging.getLogger(__name__)

_PUBLIC_ERRORS: tuple[type[LanguageModelError], ...] = (
    LanguageModelTimeout,
    RateLimitError,
    ServerError,
    TruncatedResponseError,
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


class Spend(Protocol):
    """What one transport attempt reports for accounting."""

    @property
    def prompt_tokens(self) -> int: ...

    @property
    def completion_tokens(self) -> int: ...

    @property
    def cost(self) -> float: ...


AskT = TypeVar("AskT")
RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT", bound=Spend)
ResultT = TypeVar("ResultT")


@dataclasses.dataclass
class _CallMeter:
    """One call as it goes: attempts, spend, time queued and with the provider.

    The call's budget (`total_timeout`) is spent by attempts and backoff waits,
    not by queueing for a slot: a large batch behind a slow but healthy provider
    does not fail calls that never got to send; each attempt is still bounded by
    `timeout`.
    """

    total_timeout: float | None
    started_at: float = dataclasses.field(default_factory=time.time)
    clock: float = dataclasses.field(default_factory=time.perf_counter)
    attempts: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    queue_s: float = 0.0
    provider_s: float = 0.0
    backoff_s: float = 0.0
    finish_reason: str | None = None

    def time_left(self) -> float:
        if self.total_timeout is None:
            return math.inf
        return self.total_timeout - self.provider_s - self.backoff_s

    def add(self, response: Spend) -> None:
        """Count what one response cost (each response once, whether its answer is kept)."""
        self.prompt_tokens += response.prompt_tokens
        self.completion_tokens += response.completion_tokens
        self.cost += response.cost
        finish_reason = getattr(response, "finish_reason", None)
        self.finish_reason = finish_reason if isinstance(finish_reason, str) else None

    def record(self, model: str, *, error: str | None = None) -> CallRecord:
        return CallRecord(
            model=model,
            started_at=self.started_at,
            latency_s=time.perf_counter() - self.clock,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost=self.cost,
            cached=False,
            ok=error is None,
            error=error,
            attempts=self.attempts,
            queue_ms=1000.0 * self.queue_s,
            provider_ms=1000.0 * self.provider_s,
            finish_reason=self.finish_reason,
        )


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


class ModelBase(Generic[AskT, RequestT, ResponseT, ResultT]):
    """Shared machinery of `LanguageModel` and `EmbeddingModel`.

    A subclass supplies the steps of one call (see `_call`): ``_request(ask)``
    builds the request of one attempt, ``_transport(request)`` sends it (no
    retries), ``_answer(ask, response)`` turns the response into the answer or
    raises `InvalidResponseError`, and ``_adapt(request, error)`` may change how
    later requests are built to avoid an error.

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
        max_concurrency: the most requests in flight at once per model instance;
            ``None`` for the class's default for its provider (``default_concurrency``).
            The bound in force halves on a rate limit and recovers by one per round
            of successes, never above this (see `concurrency`).
        default_concurrency: the bound when ``max_concurrency`` is None.
        cache_dir: directory of the on-disk answer cache; ``None`` disables it.
        **litellm_kwargs: passed to litellm on every request.

    Attributes:
        usage: the `Usage` accounting of every call.
        budget: a `Budget` shared with the run's other models (None: uncapped); each
            request reserves one call from it just before it is sent, and a
            refusal raises `BudgetExhausted` (see `budget`).
        request_policy: the `RequestPolicy` that says where this model's requests may
            go (None: the process default, `request_policy.set_default_policy`, which is
            none unless a program installed one). A refused destination fails the call
            with `RequestRefused`, never retried. Not part of the config.
        environment_keys: whether a call without ``api_key`` may take the provider's key
            from the environment (``OPENAI_API_KEY``...), as litellm does (default True).
            False sends a placeholder instead: a server that calls addresses its users
            chose must never send them its own keys. Not part of the config.
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
        max_concurrency: int | None,
        default_concurrency: int,
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
        if max_concurrency is not None and (
            isinstance(max_concurrency, bool)
            or not isinstance(max_concurrency, int)
            or max_concurrency < 1
        ):
            raise ValueError(
                f"`max_concurrency` must be None or an int >= 1, got {max_concurrency!r}"
            )
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
        self._configured_concurrency = max_concurrency
        self.max_concurrency: int = max_concurrency or max(1, default_concurrency)
        """The most requests in flight: ``max_concurrency``, or the provider's default."""
        self.cache_dir = None if cache_dir is None else os.fspath(cache_dir)
        self.litellm_kwargs = dict(litellm_kwargs)
        self.usage = Usage()
        self.budget: Budget | None = None
        self.request_policy: RequestPolicy | None = None
        self.environment_keys = True
        self.last_error: LanguageModelError | None = None
        self._limit = ConcurrencyLimit(self.max_concurrency, usage=self.usage)

    @property
    def api_key(self) -> str | None:
        """The configured key (read-only; never part of `get_config` or `repr`)."""
        return self._api_key

    @property
    def concurrency_bound(self) -> int:
        """The bound on requests in flight now (``max_concurrency`` until a rate limit)."""
        return self._limit.bound

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"

    # -- the steps a model supplies ---------------------------------------------

    async def _prepare(self) -> None:
        """Get the transport ready before the first request (e.g. import litellm).

        Runs outside the concurrency slot and the timeout, and is not counted
        in the call's latency.
        """

    def _request(self, ask: AskT) -> RequestT:
        """The request of one attempt (built per attempt: `_adapt` may change it)."""
        raise NotImplementedError

    async def _transport(self, request: RequestT) -> ResponseT:
        """Send one request, no retries; raise an `optimizer_core.exceptions` error."""
        raise NotImplementedError

    def _answer(self, ask: AskT, response: ResponseT) -> ResultT:
        """The answer in a response; `InvalidResponseError` (retried) for an unusable one."""
        raise NotImplementedError

    def _adapt(self, request: RequestT, error: LanguageModelError) -> bool:
        """Whether later requests were changed to avoid ``error`` (resent at once, no retry)."""
        return False

    # -- the call -------------------------------------------------------------

    async def _call(self, ask: AskT) -> ResultT:
        """Ask until answered, or until the error is final; record one `CallRecord`."""
        await self._prepare()
        meter = _CallMeter(self.total_timeout)
        while True:
            request = self._request(ask)
            try:
                response = await self._send(request, meter)
                result = self._answer(ask, response)
            except LanguageModelError as error:
                if self._adapt(request, error):
                    continue
                delay = self._backoff_delay(meter.retries, error)
                final = self._final_error(error, meter, delay)
                if final is not None:
                    self.usage.record(meter.record(self.model, error=str(final)))
                    self.last_error = final
                    raise final from error
                meter.retries += 1
                logger.debug(
                    "%s: %s; retry %d/%d in %.3fs",
                    self.model,
                    error,
                    meter.retries,
                    self.max_retries,
                    delay,
                )
                try:
                    await asyncio.sleep(delay)
                except BaseException:
                    failure = f"cancelled while backing off after: {error}"
                    self.usage.record(meter.record(self.model, error=failure))
                    raise
                meter.backoff_s += delay
            except BaseException as error:
                if meter.attempts:  # a call refused by the budget before sending made none
                    failure = f"{type(error).__name__}: {error}"
                    self.usage.record(meter.record(self.model, error=failure))
                raise
            else:
                self.usage.record(meter.record(self.model))
                return result

    def _destination(self) -> str | None:
        """The base URL requests go to, when one is set (the provider's own default: None)."""
        return _litellm.effective_api_base(self.model, self.api_base)

    async def _send(self, request: RequestT, meter: _CallMeter) -> ResponseT:
        """One attempt: check where it goes, wait for a slot, take a call from the budget,
        send in the time allowed."""
        policy = self.request_policy if self.request_policy is not None else default_policy()
        destination = self._destination()
        if policy is not None and destination:
            try:
                await policy.check_url(destination)  # RequestRefused: nothing sent
            except RequestRefused as error:
                error.model = self.model
                raise
        queued = time.perf_counter()
        async with self._limit.slot():
            if self.budget is not None:
                self.budget.reserve(self.model)  # BudgetExhausted: nothing sent
            meter.attempts += 1
            sent = time.perf_counter()
            meter.queue_s += sent - queued
            time_limit = min(self.timeout, meter.time_left())
            if time_limit <= 0:
                # The slot came too late: the call's budget ran out in an earlier attempt.
                raise LanguageModelTimeout("no time left for another attempt", model=self.model)
            self.usage.request_started()
            try:
                async with asyncio.timeout(time_limit):
                    response = await self._policed_transport(request, policy)
            except TimeoutError as error:
                raise LanguageModelTimeout(
                    f"no answer within {_seconds(time_limit)} s", model=self.model
                ) from error
            except RateLimitError:
                self._limit.rate_limited(sent)
                raise
            finally:
                meter.provider_s += time.perf_counter() - sent
                self.usage.request_finished()
        self._limit.succeeded()
        meter.add(response)
        if self.budget is not None:
            self.budget.spend(
                tokens=response.prompt_tokens + response.completion_tokens, cost=response.cost
            )
        return response

    async def _policed_transport(
        self, request: RequestT, policy: RequestPolicy | None
    ) -> ResponseT:
        """`_transport` with every connection it opens checked against ``policy``."""
        with enforced(policy) as guard:
            try:
                return await self._transport(request)
            except Exception as error:
                # However the HTTP client wrapped the refused connect, the policy's
                # reason is the call's.
                refusal = None if guard is None else guard.refusal(self._destination())
                if refusal is None:
                    raise
                refusal.model = self.model
                raise refusal from error

    # -- retries ----------------------------------------------------------------

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
        self, error: LanguageModelError, meter: _CallMeter, delay: float
    ) -> LanguageModelError | None:
        """The error that ends the call, or None when a retry may follow after ``delay``."""
        attempts = meter.attempts
        plural = "s" if attempts != 1 else ""
        too_long = self._retry_after_too_long(error)
        if error.retryable and meter.retries < self.max_retries and not too_long:
            if meter.time_left() > delay:
                return None
            # A retry that could not start before the budget runs out is not tried:
            # say the call's bound ran out first, the last error after.
            return LanguageModelTimeout(
                f"{self._kind} {self.model!r} did not answer within "
                f"{_seconds(self.total_timeout)} s ({attempts} attempt{plural}; "
                f"last error: {error})",
                model=self.model,
            )
        if isinstance(error, RequestRefused):
            return RequestRefused(
                f"{self._kind} {self.model!r} failed: {error} (nothing was sent there)",
                model=self.model,
                url=error.url,
                reason=error.reason,
                allow_entry=error.allow_entry,
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
        elif isinstance(error, TruncatedResponseError):
            final = TruncatedResponseError(message, model=self.model, max_tokens=error.max_tokens)
        else:
            cls = next((c for c in _PUBLIC_ERRORS if isinstance(error, c)), LanguageModelError)
            final = cls(message, model=self.model)
        if final.retryable != error.retryable:
            final.retryable = error.retryable
        return final

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
            "max_concurrency": self._configured_concurrency,
            "cache_dir": self.cache_dir,
        }
