"""`LanguageModel`: chat completions through litellm, with retries, a cache and accounting.

A call reads top to bottom: `LanguageModel.__call__` checks its arguments, looks
in the cache, then asks through `ModelBase._call` (slot, deadline, retries,
accounting), whose steps are here: `_request` (the `ChatRequest` of one attempt,
in the structured-output mode in force), `_transport` (one ``litellm.acompletion``;
what `FakeLanguageModel` replaces) and `_answer` (parse, then the one validation).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import logging
import os
import re
import time
import weakref
from collections.abc import Callable
from typing import Any, Literal, TypeVar, overload

import pydantic

from optimizer_core.exceptions import (
    InvalidResponseError,
    LanguageModelError,
    TruncatedResponseError,
)
from optimizer_core.language_models import _litellm
from optimizer_core.language_models.base import ModelBase, public_kwargs
from optimizer_core.language_models.bounds import REASONING_TOKENS, answer_bound
from optimizer_core.language_models.cache import MISSING, DiskCache, request_key
from optimizer_core.language_models.call_overrides import overrides_for
from optimizer_core.language_models.parsing import parse_json_object, quote_start

logger = logging.getLogger(__name__)

StructuredOutput = Literal["json_schema", "json_object", "none"]
_STRUCTURED_OUTPUT_MODES: tuple[StructuredOutput, ...] = ("json_schema", "json_object", "none")
_SCHEMA_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")

M = TypeVar("M", bound=pydantic.BaseModel)

ReasoningEffort = Literal["minimal", "low", "medium", "high", "disable", "none"]
REASONING_EFFORTS: tuple[ReasoningEffort, ...] = (
    "minimal",
    "low",
    "medium",
    "high",
    "disable",
    "none",
)
"""What ``reasoning_effort`` takes (the reference library's values; None: not sent).

``"none"`` sends nothing, ``"disable"`` turns an Ollama thinking model's reasoning off
(``think=False``; nothing to send elsewhere), the others go to a model litellm knows
reasons and are left out for any other."""

DEFAULT_MAX_CONCURRENCY = 64
"""Requests in flight for a remote provider unless set: a whole batch, and the
candidate scoring that runs beside it, go out in one round."""


@dataclasses.dataclass(frozen=True)
class ChatRequest:
    """One request as a transport sends it.

    Attributes:
        messages: the chat messages (with the schema instruction appended when
            the structured-output mode is ``"json_object"`` or ``"none"``).
        schema: the JSON schema the answer must fill, or None for free text.
        response_format: litellm's ``response_format`` argument, or None.
        temperature: the sampling temperature, or None for the provider default.
        max_tokens: the completion token bound (every request `LanguageModel`
            builds has one, see `bounds`).
        seed: the sampling seed (pinned by `call_overrides.pin_calls`), or None;
            sent only to providers that take one.
        top_p: nucleus sampling's probability mass, or None; sent only to providers
            that take it.
        top_k: top-k sampling's cutoff, or None; sent only to providers that take it.
        reasoning_effort: one of `REASONING_EFFORTS`, or None.
    """

    messages: list[dict[str, str]]
    schema: dict[str, Any] | None
    response_format: dict[str, Any] | None
    temperature: float | None
    max_tokens: int | None = None
    seed: int | None = None
    top_p: float | None = None
    top_k: int | None = None
    reasoning_effort: ReasoningEffort | None = None


@dataclasses.dataclass(frozen=True)
class ChatResponse:
    """What a transport got back for one request.

    Attributes:
        text: the answer's text; None when the provider sent no text.
        prompt_tokens: prompt tokens the provider counted.
        completion_tokens: completion tokens the provider counted.
        cost: the price in US dollars, 0.0 when unknown.
        finish_reason: why the provider stopped: ``"stop"``, ``"length"`` (the
            request's ``max_tokens`` was reached)..., None when it did not say.
    """

    text: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    finish_reason: str | None = None


def schema_instruction(schema: dict[str, Any]) -> str:
    """The instruction added to the prompt when the provider cannot enforce a schema."""
    return (
        "Answer with a single JSON object, and nothing else, that follows this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False)
    )


def _with_instruction(messages: list[dict[str, str]], instruction: str) -> list[dict[str, str]]:
    updated = [dict(message) for message in messages]
    for message in reversed(updated):
        if message.get("role") == "user":
            if isinstance(message.get("content"), str):
                message["content"] = f"{message['content']}\n\n{instruction}"
                return updated
            break
    updated.append({"role": "user", "content": instruction})
    return updated


def _schema_name(schema: dict[str, Any]) -> str:
    title = schema.get("title")
    name = _SCHEMA_NAME_CHARS.sub("_", title).strip("_") if isinstance(title, str) else ""
    return (name or "output")[:64]


@dataclasses.dataclass(frozen=True)
class OutputSchema:
    """A JSON schema an answer must fill, with what requests need of it, built once.

    Attributes:
        schema: the schema (shared: never handed out, see `copy`).
        text: the schema as JSON text.
        name: the ``response_format`` name (from the schema's title).
        instruction: `schema_instruction` for the schema, for modes that write it
            into the prompt.
        bound: the tokens the longest answer the schema allows needs
            (`bounds.answer_bound`): the request's ``max_tokens`` when no caller set one.
    """

    schema: dict[str, Any]
    text: str
    name: str
    instruction: str
    bound: int

    @classmethod
    def of(cls, schema: dict[str, Any]) -> OutputSchema:
        text = json.dumps(schema, ensure_ascii=False)
        return cls(
            schema=schema,
            text=text,
            name=_schema_name(schema),
            instruction=schema_instruction(schema),
            bound=answer_bound(schema),
        )

    def copy(self) -> dict[str, Any]:
        """A fresh copy for one request (litellm and providers may edit what they get)."""
        value: dict[str, Any] = json.loads(self.text)
        return value


# One OutputSchema per output class, built on the first call that asks for it.
_OUTPUT_SCHEMAS: weakref.WeakKeyDictionary[type[Any], OutputSchema] = weakref.WeakKeyDictionary()


def output_schema(data_model: type[pydantic.BaseModel]) -> OutputSchema:
    """The `OutputSchema` of a DataModel (or any pydantic model) class, built once per class."""
    found = _OUTPUT_SCHEMAS.get(data_model)
    if found is None:
        get_schema = getattr(data_model, "get_schema", None)
        schema = get_schema() if callable(get_schema) else data_model.model_json_schema()
        found = _OUTPUT_SCHEMAS[data_model] = OutputSchema.of(schema)
    return found


@dataclasses.dataclass(frozen=True)
class _Ask:
    """What one call asks for, as `__call__` received it."""

    messages: list[dict[str, str]]
    output: OutputSchema | None
    data_model: type[pydantic.BaseModel] | None
    validate: Callable[[dict[str, Any]], object] | None
    temperature: float | None
    seed: int | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    top_k: int | None = None
    reasoning_effort: ReasoningEffort | None = None


def check_sampling(
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    top_p: float | None = None,
    top_k: int | None = None,
    reasoning_effort: str | None = None,
) -> None:
    """Raise `ValueError` naming the first sampling setting out of its range (None: unset)."""
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, int | float) or temperature < 0
    ):
        raise ValueError(f"`temperature` must be >= 0, got {temperature!r}")
    if max_tokens is not None and (
        isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
    ):
        raise ValueError(f"`max_tokens` must be an int >= 1, got {max_tokens!r}")
    if top_p is not None and (
        isinstance(top_p, bool) or not isinstance(top_p, int | float) or not 0 < top_p <= 1
    ):
        raise ValueError(f"`top_p` must be in (0, 1], got {top_p!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise ValueError(f"`top_k` must be an int >= 1, got {top_k!r}")
    if reasoning_effort is not None and reasoning_effort not in REASONING_EFFORTS:
        raise ValueError(
            f"`reasoning_effort` must be None or one of {list(REASONING_EFFORTS)}, "
            f"got {reasoning_effort!r}"
        )


class LanguageModel(ModelBase[_Ask, ChatRequest, ChatResponse, Any]):
    """A chat model reached through litellm.

    Calls retry transient failures (timeouts, HTTP 429 honouring Retry-After,
    5xx, connection errors, malformed answers) with exponential backoff and full
    jitter; at most ``max_concurrency`` requests are in flight per instance
    (backoff sleeps hold no slot), fewer after rate limits (the bound halves on
    a 429 and recovers by one per round of successes); answers can be cached on
    disk; every call is accounted in `usage`, with the time it queued for a slot
    apart from the time the provider took.

    Structured output goes through litellm's ``response_format``. When a
    provider answers HTTP 400 about ``response_format``, the instance falls back
    to ``"json_object"``, then ``"none"`` (the schema is then written into the
    last user message), and keeps that mode for later calls.

    Every request is bounded: it sends ``max_tokens``, the call's own (a module's
    setting), else this model's, else what the longest answer the schema allows needs
    (`bounds.answer_bound`; `bounds.TEXT_TOKENS` for free text; plus a reasoning
    allowance for a model litellm knows reasons, `bounds.REASONING_TOKENS`; at most
    the model's output limit where litellm knows it). A structured answer cut at that
    bound (``finish_reason`` "length") that does not parse fails at once with
    `TruncatedResponseError`: retrying would run into the same bound.

    A local OpenAI-compatible server is reached with ``model="openai/<name>"``
    and ``api_base="http://host:port/v1"`` or the ``OPENAI_API_BASE``
    environment variable; no key is needed for it.

    Args:
        model: litellm model name, e.g. ``"openai/gpt-4o-mini"``.
        api_base: base URL of the API (default: the provider's).
        api_key: the key (default: the provider's environment variable). Never
            saved in a config, never logged.
        temperature: sampling temperature (default: the provider's).
        max_tokens: completion token bound of every call (default: from each call's
            schema, see above).
        timeout: seconds one attempt may take (default 60: a structured answer
            that has not begun in a minute is far more often a hung provider than a
            slow one; raise it for long reasoning models).
        total_timeout: seconds one call may take, every attempt and backoff wait
            included (default 180: three hung attempts, or many quick retries of
            429s and 5xx). ``None``: no bound beyond ``timeout`` per attempt.
        max_retries: retries after the first attempt (default 5).
        backoff_base: first backoff ceiling, seconds (default 0.5).
        backoff_max: largest backoff, seconds, Retry-After aside (default 30).
        max_concurrency: the most requests in flight at once (default None: the
            provider's; 64 for a remote provider, enough for a whole batch).
        cache_dir: directory of the on-disk answer cache (default: no cache).
        structured_output: ``"json_schema"`` (default), ``"json_object"`` or
            ``"none"``: how a schema is requested from the provider.
        **litellm_kwargs: passed to ``litellm.acompletion`` on every request.

    Example:
        ```python
        lm = LanguageModel("openai/gpt-4o-mini", temperature=0.2)
        answer = await lm(
            [{"role": "user", "content": "What is the capital of France?"}],
            data_model=Answer,
        )
        print(answer.answer, lm.usage.total_tokens)
        ```
    """

    _kind = "language model"

    compact_prompts: bool = False
    """Whether the prompts the engine writes for this model (OMEGA's mutations) should be
    the compact ones a small model can follow (`LocalLanguageModel` sets it)."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout: float = 60.0,
        total_timeout: float | None = 180.0,
        max_retries: int = 5,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_concurrency: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        structured_output: StructuredOutput = "json_schema",
        **litellm_kwargs: Any,
    ) -> None:
        for reserved in ("response_format", "temperature", "max_tokens", "timeout"):
            if reserved in litellm_kwargs:
                raise ValueError(f"`{reserved}` is set by LanguageModel itself")
        super().__init__(
            model,
            api_base=api_base,
            api_key=api_key,
            timeout=timeout,
            total_timeout=total_timeout,
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            max_concurrency=max_concurrency,
            default_concurrency=self._default_concurrency(),
            cache_dir=cache_dir,
            litellm_kwargs=litellm_kwargs,
        )
        check_sampling(temperature=temperature, max_tokens=max_tokens)
        if structured_output not in _STRUCTURED_OUTPUT_MODES:
            raise ValueError(
                f"`structured_output` must be one of {list(_STRUCTURED_OUTPUT_MODES)}, "
                f"got {structured_output!r}"
            )
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.structured_output: StructuredOutput = structured_output
        self._mode: StructuredOutput = structured_output
        self._cache = DiskCache(self.cache_dir) if self.cache_dir is not None else None

    def use_cache(self, cache_dir: str | os.PathLike[str] | None) -> None:
        """Cache answers in ``cache_dir`` from now on (None: the constructor's cache).

        Unlike the constructor's ``cache_dir`` this is not part of `get_config`: a
        program saved with this model does not carry the directory (the studio
        attaches each user's own cache this way).
        """
        directory = self.cache_dir if cache_dir is None else os.fspath(cache_dir)
        self._cache = DiskCache(directory) if directory is not None else None

    def _default_concurrency(self) -> int:
        """Requests in flight when ``max_concurrency`` is not given: the provider's capacity."""
        return DEFAULT_MAX_CONCURRENCY

    @property
    def effective_structured_output(self) -> StructuredOutput:
        """The structured-output mode in use, after any fallback the provider forced."""
        return self._mode

    @overload
    async def __call__(
        self,
        messages: list[dict[str, str]],
        *,
        data_model: type[M],
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        reasoning_effort: ReasoningEffort | None = None,
    ) -> M: ...

    @overload
    async def __call__(
        self,
        messages: list[dict[str, str]],
        *,
        schema: dict[str, Any],
        validate: Callable[[dict[str, Any]], object] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        reasoning_effort: ReasoningEffort | None = None,
    ) -> dict[str, Any]: ...

    @overload
    async def __call__(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        reasoning_effort: ReasoningEffort | None = None,
    ) -> str: ...

    async def __call__(
        self,
        messages: list[dict[str, str]],
        *,
        schema: dict[str, Any] | None = None,
        data_model: type[pydantic.BaseModel] | None = None,
        validate: Callable[[dict[str, Any]], object] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        reasoning_effort: ReasoningEffort | None = None,
    ) -> Any:
        """Ask the model.

        Args:
            messages: chat messages, ``[{"role": ..., "content": ...}, ...]``.
            data_model: a DataModel (or pydantic model) class: the answer must fill
                its JSON schema, is validated once, and comes back as an instance.
                Its schema and request parts are built once per class.
            schema: a JSON schema instead of a class; the answer comes back as a dict.
            validate: with ``schema``, called with the parsed dict; any exception
                it raises makes the answer invalid (retried like malformed JSON).
            temperature: overrides the instance's temperature for this call.
            max_tokens: this call's completion token bound, instead of the
                instance's or the schema's (see the class docstring).
            top_p: nucleus sampling for this call; sent where the provider takes it.
            top_k: top-k sampling for this call; sent where the provider takes it.
            reasoning_effort: one of `REASONING_EFFORTS` for this call; sent to a
                model litellm knows reasons.

        Returns:
            An instance of ``data_model``; the parsed JSON object when ``schema``
            is given; else the text.

        Raises:
            LanguageModelError: or a subclass, once retries are exhausted or the
                error cannot be retried; the message names the model, the cause
                and the number of attempts.
        """
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise TypeError("`messages` must be a list of {'role': ..., 'content': ...} dicts")
        check_sampling(
            temperature=temperature,
            max_tokens=max_tokens,
            top_p=top_p,
            top_k=top_k,
            reasoning_effort=reasoning_effort,
        )
        output: OutputSchema | None = None
        if data_model is not None:
            if not (isinstance(data_model, type) and issubclass(data_model, pydantic.BaseModel)):
                raise TypeError(f"`data_model` must be a DataModel class, got {data_model!r}")
            if schema is not None or validate is not None:
                raise ValueError("give `data_model`, or `schema` (and `validate`), not both")
            output = output_schema(data_model)
        elif schema is not None:
            if not isinstance(schema, dict):
                raise TypeError(
                    f"`schema` must be a dict (a JSON schema), got {type(schema).__name__}"
                )
            output = OutputSchema.of(schema)
        # An evaluation may pin this model's temperature and seed (`pin_calls`).
        pinned = overrides_for(self)
        if pinned is not None and pinned.temperature is not None:
            temperature = pinned.temperature
        ask = _Ask(
            messages=messages,
            output=output,
            data_model=data_model,
            validate=validate,
            temperature=self.temperature if temperature is None else temperature,
            seed=None if pinned is None else pinned.seed,
            max_tokens=max_tokens,
            top_p=top_p,
            top_k=top_k,
            reasoning_effort=reasoning_effort,
        )
        if self._cache is None:
            return await self._call(ask)
        key = self._cache_key(ask)
        hit = await self._cached_answer(key, ask)
        if hit is not MISSING:
            return hit
        answer = await self._call(ask)
        stored = answer.model_dump(mode="json") if data_model is not None else answer
        await asyncio.to_thread(
            self._cache.put,
            key,
            stored,
            {"model": self.model, "messages": messages, "schema": schema},
        )
        return answer

    # -- one attempt ------------------------------------------------------------

    def _request(self, ask: _Ask) -> ChatRequest:
        request = self._build_request(ask.messages, ask.output, ask.temperature)
        return dataclasses.replace(
            request,
            max_tokens=self._completion_bound(ask),
            seed=ask.seed,
            top_p=ask.top_p,
            top_k=ask.top_k,
            reasoning_effort=ask.reasoning_effort,
        )

    def _completion_bound(self, ask: _Ask) -> int:
        """The call's ``max_tokens``: its own, else this model's, else from its schema.

        The schema's bound (`OutputSchema.bound`, `bounds.TEXT_TOKENS` for free text)
        gets a reasoning allowance for a model that reasons, and is capped by the
        model's output limit where litellm knows it.
        """
        explicit = ask.max_tokens if ask.max_tokens is not None else self.max_tokens
        if explicit is not None:
            return explicit
        bound = self._answer_bound(ask.output)
        effort = ask.reasoning_effort
        if effort not in ("disable", "none") and self._reasons():
            bound += REASONING_TOKENS[effort or "medium"]
        limit = self._output_limit()
        return bound if limit is None else min(bound, limit)

    def _answer_bound(self, output: OutputSchema | None) -> int:
        """The tokens the longest answer needs: the schema's bound, else `bounds.TEXT_TOKENS`."""
        return answer_bound(None) if output is None else output.bound

    def _reasons(self) -> bool:
        """Whether this model reasons before it answers (litellm's model map says)."""
        return _litellm.reasons(self.model)

    def _output_limit(self) -> int | None:
        """The most tokens this model writes in one answer, None when unknown."""
        return _litellm.output_limit(self.model)

    def _build_request(
        self,
        messages: list[dict[str, str]],
        output: OutputSchema | None,
        temperature: float | None,
    ) -> ChatRequest:
        """The request in the structured-output mode in force (it may change between attempts)."""
        schema: dict[str, Any] | None = None
        response_format: dict[str, Any] | None = None
        if output is not None:
            schema = output.copy()
            if self._mode == "json_schema":
                response_format = {
                    "type": "json_schema",
                    "json_schema": {"name": output.name, "schema": schema, "strict": False},
                }
            else:
                if self._mode == "json_object":
                    response_format = {"type": "json_object"}
                messages = _with_instruction(messages, output.instruction)
        return ChatRequest(
            messages=messages,
            schema=schema,
            response_format=response_format,
            temperature=temperature,
        )

    def _adapt(self, request: ChatRequest, error: LanguageModelError) -> bool:
        """Fall back to a simpler structured-output mode when the provider refused one."""
        if not isinstance(error, _litellm.ResponseFormatRejected) or self._mode == "none":
            return False
        if error.rejected != self._mode:
            # A concurrent call already moved this instance on: resend in the current mode.
            return True
        previous = self._mode
        self._mode = "json_object" if previous == "json_schema" else "none"
        logger.warning(
            "%s rejected response_format %r; falling back to %r for this model: %s",
            self.model,
            previous,
            self._mode,
            error,
        )
        return True

    def _answer(self, ask: _Ask, response: ChatResponse) -> Any:
        text = response.text
        if text is None:
            raise InvalidResponseError("the answer had no text content", model=self.model)
        if ask.output is None:
            return text
        try:
            value = parse_json_object(text)
        except ValueError as error:
            self._check_complete(ask, response)
            raise InvalidResponseError(
                f"invalid JSON answer: {error}; the answer began {quote_start(text)}",
                model=self.model,
            ) from None
        try:
            return self._validated(ask, value, text)
        except InvalidResponseError:
            self._check_complete(ask, response)
            raise

    def _check_complete(self, ask: _Ask, response: ChatResponse) -> None:
        """Raise `TruncatedResponseError` for an unusable answer the bound cut short."""
        if response.finish_reason != "length":
            return
        bound = self._completion_bound(ask)
        raise TruncatedResponseError(
            f"the answer reached its bound of {bound} tokens before it was complete "
            f"(finish_reason 'length', {response.completion_tokens} tokens written); the "
            f"answer began {quote_start(response.text or '')}. A longer answer needs a "
            "larger `max_tokens` on the module or the language model",
            model=self.model,
            max_tokens=bound,
        )

    def _validated(self, ask: _Ask, value: dict[str, Any], text: str | None) -> Any:
        """The one check of an answer (fresh or cached): the data model's, or ``validate``."""
        if ask.data_model is None and ask.validate is None:
            return value
        try:
            if ask.data_model is not None:
                return ask.data_model.model_validate(value)
            assert ask.validate is not None
            ask.validate(value)
        except Exception as error:
            shown = text if text is not None else json.dumps(value, ensure_ascii=False)
            raise InvalidResponseError(
                f"the answer failed validation: {type(error).__name__}: {error}; "
                f"the answer began {quote_start(shown)}",
                model=self.model,
            ) from error
        return value

    # -- cache ----------------------------------------------------------------

    def _cache_key(self, ask: _Ask) -> str:
        return request_key(
            {
                "kind": "chat",
                "model": self.model,
                "api_base": _litellm.effective_api_base(self.model, self.api_base),
                "messages": ask.messages,
                "schema": None if ask.output is None else ask.output.schema,
                "temperature": ask.temperature,
                "max_tokens": self.max_tokens,
                "kwargs": public_kwargs(self.litellm_kwargs),
                # Only when set, so the keys of calls without them stay as they were.
                **({} if ask.seed is None else {"seed": ask.seed}),
                **{
                    name: value
                    for name, value in (
                        ("call_max_tokens", ask.max_tokens),
                        ("top_p", ask.top_p),
                        ("top_k", ask.top_k),
                        ("reasoning_effort", ask.reasoning_effort),
                    )
                    if value is not None
                },
            }
        )

    async def _cached_answer(self, key: str, ask: _Ask) -> Any:
        assert self._cache is not None
        started_at, clock = time.time(), time.perf_counter()
        value = await asyncio.to_thread(self._cache.get, key)
        if value is MISSING:
            return MISSING
        if ask.output is None:
            if not isinstance(value, str):
                return MISSING
        else:
            if not isinstance(value, dict):
                return MISSING
            try:
                value = self._validated(ask, value, None)
            except InvalidResponseError:
                return MISSING
        self._record_cached(started_at=started_at, latency_s=time.perf_counter() - clock)
        return value

    # -- transport ------------------------------------------------------------

    async def _prepare(self) -> None:
        await _litellm.import_litellm_async()

    async def _transport(self, request: ChatRequest) -> ChatResponse:
        """Send one request through ``litellm.acompletion``; no retries here.

        Subclasses replace this to answer without a provider (see
        `FakeLanguageModel`); everything else stays the same.
        """
        litellm = _litellm.import_litellm()
        api_key = _litellm.default_api_key(
            self.model, self.api_base, self.api_key, environment=self.environment_keys
        )
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "timeout": self.timeout,
            "num_retries": 0,
            **self.litellm_kwargs,
        }
        if self.api_base is not None:
            kwargs["api_base"] = self.api_base
        if api_key is not None:
            kwargs["api_key"] = api_key
        if request.response_format is not None:
            kwargs["response_format"] = request.response_format
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        if request.seed is not None and _litellm.takes_param(self.model, "seed"):
            kwargs["seed"] = request.seed
        kwargs.update(self._sampling_arguments(request))
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as error:
            raise _litellm.map_error(
                error,
                model=self.model,
                api_key=api_key,
                sent_response_format=None
                if request.response_format is None
                else str(request.response_format.get("type")),
            ) from error
        try:
            choice = response.choices[0]
            text = choice.message.content
        except (AttributeError, IndexError, TypeError) as error:
            raise InvalidResponseError(
                f"the provider's answer had no choices ({error})", model=self.model
            ) from None
        usage = getattr(response, "usage", None)
        finish_reason = getattr(choice, "finish_reason", None)
        return ChatResponse(
            text=text if isinstance(text, str) else None,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost=_litellm.response_cost(response),
            finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        )

    def _sampling_arguments(self, request: ChatRequest) -> dict[str, Any]:
        """``top_p``, ``top_k`` and ``reasoning_effort`` as litellm takes them for this model.

        Each goes only to a provider that takes it (`_litellm.takes_param`; the
        effort only to a model litellm knows reasons): one that does not would
        refuse the request. ``"disable"`` becomes Ollama's ``think=False``.
        """
        arguments: dict[str, Any] = {}
        for name in ("top_p", "top_k"):
            value = getattr(request, name)
            if value is not None and _litellm.takes_param(self.model, name):
                arguments[name] = value
        effort = request.reasoning_effort
        if effort == "disable":
            if self.model.startswith(("ollama/", "ollama_chat/")):
                arguments["think"] = False
        elif effort not in (None, "none") and self._reasons():
            arguments["reasoning_effort"] = effort
        return arguments

    # -- config ---------------------------------------------------------------

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible; the API key is never included."""
        return {
            **self._base_config(),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "structured_output": self.structured_output,
            **public_kwargs(self.litellm_kwargs),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LanguageModel:
        """Rebuild a model from `get_config` output."""
        return cls(**copy.deepcopy(config))


__all__ = [
    "REASONING_EFFORTS",
    "ChatRequest",
    "ChatResponse",
    "LanguageModel",
    "OutputSchema",
    "ReasoningEffort",
    "check_sampling",
    "output_schema",
]
