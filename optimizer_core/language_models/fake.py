"""Scripted models for tests: the real retry, parsing and accounting path, no provider.

Like httpx's ``MockTransport``, the fakes only replace the transport of
`LanguageModel` / `EmbeddingModel`; everything a caller sees (retries, JSON
parsing, validation, the cache, concurrency limits, `Usage`) is the real code.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from optimizer_core.exceptions import LanguageModelError
from optimizer_core.language_models.embedding_model import EmbeddingModel, EmbeddingResponse
from optimizer_core.language_models.language_model import ChatRequest, ChatResponse, LanguageModel
from optimizer_core.language_models.synthetic import hashed_bag_of_words, schema_filler

Answer: TypeAlias = dict[str, Any] | str
Responder: TypeAlias = Callable[
    [list[dict[str, str]], dict[str, Any] | None], Answer | Awaitable[Answer]
]
ScriptedResponse: TypeAlias = dict[str, Any] | str | BaseException | Responder

_FAKE_BACKOFF_BASE = 0.001
_FAKE_BACKOFF_MAX = 0.01


@dataclasses.dataclass(frozen=True)
class FakeCall:
    """One request the fake received (one per attempt, retries included).

    Attributes:
        messages: the messages as sent (with the schema instruction when the
            structured-output mode is not ``"json_schema"``).
        schema: the requested JSON schema, or None.
        temperature: the temperature of the request, or None.
        response_format: the ``response_format`` that would go to litellm.
        seed: the seed of the request (pinned by an evaluation), or None.
        max_tokens: the request's completion token bound.
        top_p: the request's ``top_p``, or None.
        top_k: the request's ``top_k``, or None.
        reasoning_effort: the request's ``reasoning_effort``, or None.
    """

    messages: list[dict[str, str]]
    schema: dict[str, Any] | None
    temperature: float | None
    response_format: dict[str, Any] | None
    seed: int | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    top_k: int | None = None
    reasoning_effort: str | None = None


def default_fake_responder(
    messages: list[dict[str, str]], schema: dict[str, Any] | None
) -> dict[str, Any] | str:
    """A schema-valid filler object (see `schema_filler`), or ``"ok"`` without a schema."""
    if schema is None:
        return "ok"
    filled = schema_filler(schema)
    return filled if isinstance(filled, dict) else {"value": filled}


_CHARS_PER_TOKEN = 4


def _rough_tokens(text: str) -> int:
    return len(text) // _CHARS_PER_TOKEN


def _json_compatible(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


class FakeLanguageModel(LanguageModel):
    """A `LanguageModel` whose answers are scripted.

    Each request (each attempt, so a retry consumes the next response) takes
    the next item of ``responses``:

    - a dict is answered as its JSON text;
    - a str is answered as is (``"not json"`` exercises parsing and retries);
    - an exception instance is raised (``RateLimitError(..., retry_after=0.01)``
      exercises backoff; a built-in ``TimeoutError`` counts as a timeout);
    - a callable is called with ``(messages, schema)`` and its result (or
      awaited result) is answered as above.

    With ``responses=None`` every request goes to ``responder(messages, schema)``
    (default: a schema-valid filler object, or ``"ok"``). Token counts are
    rough (characters / 4) so accounting is non-zero, and an answer longer than
    the request's ``max_tokens`` is cut there, with ``finish_reason`` "length",
    as a provider cuts it. Backoff defaults to a few milliseconds.

    Args:
        responses: the scripted answers, consumed in order.
        responder: answers every request when ``responses`` is None.
        model: the model name (default ``"fake/scripted"``).
        latency: seconds each request takes (default 0), while holding a
            concurrency slot.
        cycle: start again from the first response when all are used (default
            False: running out raises `LanguageModelError`).
        **kwargs: `LanguageModel` arguments (``max_retries``, ``backoff_base``,
            ``max_concurrency``, ``cache_dir``, ``temperature``...).

    Example:
        ```python
        lm = FakeLanguageModel(responses=["not json", {"answer": "Paris"}])
        assert await lm(messages, schema=schema) == {"answer": "Paris"}
        assert lm.usage.retries == 1 and len(lm.calls) == 2
        ```
    """

    def __init__(
        self,
        responses: Sequence[ScriptedResponse] | None = None,
        *,
        responder: Responder | None = None,
        model: str = "fake/scripted",
        latency: float = 0.0,
        cycle: bool = False,
        **kwargs: Any,
    ) -> None:
        if responses is not None and (
            isinstance(responses, str | bytes | dict) or not isinstance(responses, Sequence)
        ):
            raise TypeError(
                f"`responses` must be a list of responses, got {type(responses).__name__}"
            )
        if responses is not None and responder is not None:
            raise ValueError("give `responses` or `responder`, not both")
        if latency < 0:
            raise ValueError(f"`latency` must be >= 0, got {latency}")
        if cycle and not responses:
            raise ValueError("`cycle=True` needs a non-empty `responses` list")
        kwargs.setdefault("backoff_base", _FAKE_BACKOFF_BASE)
        kwargs.setdefault("backoff_max", _FAKE_BACKOFF_MAX)
        super().__init__(model, **kwargs)
        self.responses: list[ScriptedResponse] | None = (
            None if responses is None else list(responses)
        )
        self.responder: Responder = responder or default_fake_responder
        self.latency = float(latency)
        self.cycle = cycle
        self.calls: list[FakeCall] = []
        self._used = 0

    async def _prepare(self) -> None:
        return None

    def _next_response(self) -> ScriptedResponse:
        if self.responses is None:
            return self.responder
        if self._used >= len(self.responses) and not self.cycle:
            raise LanguageModelError(
                f"FakeLanguageModel has no scripted response left ({self._used} used)",
                model=self.model,
            )
        item = self.responses[self._used % len(self.responses)]
        self._used += 1
        return item

    async def _transport(self, request: ChatRequest) -> ChatResponse:
        self.calls.append(
            FakeCall(
                messages=copy.deepcopy(request.messages),
                schema=request.schema,
                temperature=request.temperature,
                response_format=request.response_format,
                seed=request.seed,
                max_tokens=request.max_tokens,
                top_p=request.top_p,
                top_k=request.top_k,
                reasoning_effort=request.reasoning_effort,
            )
        )
        if self.latency:
            await asyncio.sleep(self.latency)
        item: Any = self._next_response()
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            item = item(request.messages, request.schema)
            if inspect.isawaitable(item):
                item = await item
        if isinstance(item, str):
            text = item
        elif isinstance(item, dict):
            text = json.dumps(item)
        else:
            raise TypeError(
                f"a scripted response must be a dict, a str, an exception or a callable "
                f"returning a dict or a str, got {type(item).__name__}"
            )
        prompt = "".join(str(message.get("content", "")) for message in request.messages)
        finish_reason = "stop"
        bound = request.max_tokens
        if bound is not None and _rough_tokens(text) > bound:
            text, finish_reason = text[: bound * _CHARS_PER_TOKEN], "length"
        return ChatResponse(
            text=text,
            prompt_tokens=_rough_tokens(prompt),
            completion_tokens=_rough_tokens(text),
            finish_reason=finish_reason,
        )

    def _reasons(self) -> bool:
        return False

    def _output_limit(self) -> int | None:
        return None

    def get_config(self) -> dict[str, Any]:
        """Constructor arguments; ``responses`` only when JSON-compatible, never callables."""
        config = super().get_config()
        config.update(
            {
                "responses": copy.deepcopy(self.responses)
                if self.responses is not None and _json_compatible(self.responses)
                else None,
                "latency": self.latency,
                "cycle": self.cycle,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> FakeLanguageModel:
        return cls(**copy.deepcopy(config))


class FakeEmbeddingModel(EmbeddingModel):
    """An `EmbeddingModel` that embeds with a hashed bag of words, offline.

    Lowercased word tokens are hashed into ``dim`` buckets and the vector is
    L2-normalised (see `hashed_bag_of_words`), so texts sharing words have a
    higher cosine similarity and identical texts get identical vectors. Goes
    through the real batching, caching, retry and accounting path.

    Args:
        dim: vector length (default 64).
        model: the model name (default ``"fake/hashed-bag-of-words"``).
        latency: seconds each batch request takes (default 0).
        **kwargs: `EmbeddingModel` arguments (``batch_size``, ``cache_dir``,
            ``backoff_base``...).

    Example:
        ```python
        em = FakeEmbeddingModel(dim=32)
        a, b = await em(["the cat sat", "the cat slept"])
        ```
    """

    def __init__(
        self,
        dim: int = 64,
        *,
        model: str = "fake/hashed-bag-of-words",
        latency: float = 0.0,
        **kwargs: Any,
    ) -> None:
        if not isinstance(dim, int) or dim < 1:
            raise ValueError(f"`dim` must be an int >= 1, got {dim!r}")
        if latency < 0:
            raise ValueError(f"`latency` must be >= 0, got {latency}")
        kwargs.setdefault("backoff_base", _FAKE_BACKOFF_BASE)
        kwargs.setdefault("backoff_max", _FAKE_BACKOFF_MAX)
        super().__init__(model, **kwargs)
        self.dim = dim
        self.latency = float(latency)
        self.calls: list[list[str]] = []

    async def _prepare(self) -> None:
        return None

    async def _transport(self, texts: list[str]) -> EmbeddingResponse:
        self.calls.append(list(texts))
        if self.latency:
            await asyncio.sleep(self.latency)
        return EmbeddingResponse(
            vectors=[hashed_bag_of_words(text, self.dim) for text in texts],
            prompt_tokens=sum(max(1, _rough_tokens(text)) for text in texts),
        )

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "dim": self.dim, "latency": self.latency}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> FakeEmbeddingModel:
        return cls(**copy.deepcopy(config))
