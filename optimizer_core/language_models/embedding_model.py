"""`EmbeddingModel`: text embeddings through litellm, batched, cached and accounted."""

from __future__ import annotations

import asyncio
import collections
import copy
import dataclasses
import math
import os
import time
from typing import Any

from optimizer_core.exceptions import InvalidResponseError
from optimizer_core.language_models import _litellm
from optimizer_core.language_models.base import ModelBase, public_kwargs
from optimizer_core.language_models.cache import MISSING, DiskCache, request_key

_LRU_SIZE = 10_000


@dataclasses.dataclass(frozen=True)
class EmbeddingResponse:
    """What a transport got back for one batch.

    Attributes:
        vectors: one vector per text, in order.
        prompt_tokens: tokens the provider counted.
        cost: the price in US dollars, 0.0 when unknown.
    """

    vectors: list[list[float]]
    prompt_tokens: int = 0
    cost: float = 0.0

    @property
    def completion_tokens(self) -> int:
        return 0


class EmbeddingModel(ModelBase[list[str], list[str], EmbeddingResponse, list[tuple[float, ...]]]):
    """An embedding model reached through litellm.

    Texts are embedded in batches of ``batch_size`` (batches run concurrently,
    at most ``max_concurrency`` at once). Each text's vector is kept in an
    in-memory LRU cache (10,000 texts) and, with ``cache_dir``, on disk; only
    texts not cached are sent. Retries and accounting are those of
    `LanguageModel`: one `CallRecord` per batch request, or one cached record
    when every text came from a cache.

    Args:
        model: litellm model name, e.g. ``"openai/text-embedding-3-small"``.
        api_base: base URL of the API (default: the provider's).
        api_key: the key (default: the provider's environment variable). Never
            saved in a config, never logged.
        timeout: seconds one request may take (default 60).
        total_timeout: seconds one call may take, every attempt and backoff wait
            included (default 180); ``None`` for no bound beyond ``timeout``.
        max_retries: retries after the first attempt (default 5).
        max_concurrency: requests in flight at once (default 8).
        cache_dir: directory of the on-disk vector cache (default: none).
        batch_size: texts per request (default 64).
        backoff_base: first backoff ceiling, seconds (default 0.5).
        backoff_max: largest backoff, seconds, Retry-After aside (default 30).
        **litellm_kwargs: passed to ``litellm.aembedding`` (e.g. ``dimensions``).

    Example:
        ```python
        em = EmbeddingModel("openai/text-embedding-3-small")
        vectors = await em(["first text", "second text"])
        ```
    """

    _kind = "embedding model"

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        total_timeout: float | None = 180.0,
        max_retries: int = 5,
        max_concurrency: int = 8,
        cache_dir: str | os.PathLike[str] | None = None,
        batch_size: int = 64,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        **litellm_kwargs: Any,
    ) -> None:
        if "timeout" in litellm_kwargs:
            raise ValueError("`timeout` is set by EmbeddingModel itself")
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
            default_concurrency=8,
            cache_dir=cache_dir,
            litellm_kwargs=litellm_kwargs,
        )
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"`batch_size` must be an int >= 1, got {batch_size!r}")
        self.batch_size = batch_size
        self._cache = DiskCache(self.cache_dir) if self.cache_dir is not None else None
        self._memory: collections.OrderedDict[str, tuple[float, ...]] = collections.OrderedDict()
        self._openai_provider: bool | None = None

    async def __call__(self, texts: list[str]) -> list[list[float]]:
        """Embed texts.

        Args:
            texts: the texts; identical texts are sent once.

        Returns:
            One vector per text, in order (fresh lists the caller may modify).

        Raises:
            LanguageModelError: or a subclass, once retries are exhausted.
        """
        if isinstance(texts, str) or not isinstance(texts, list | tuple):
            raise TypeError(f"`texts` must be a list of strings, got {type(texts).__name__}")
        if not all(isinstance(text, str) for text in texts):
            raise TypeError("`texts` must be a list of strings")
        if not texts:
            return []
        started_at, clock = time.time(), time.perf_counter()
        keys = {text: self._text_key(text) for text in texts}
        found: dict[str, tuple[float, ...]] = {}
        for text, key in keys.items():
            vector = self._memory.get(key)
            if vector is not None:
                self._memory.move_to_end(key)
                found[text] = vector
        if self._cache is not None:
            missing = [text for text in keys if text not in found]
            if missing:
                stored = await asyncio.to_thread(
                    lambda: [(text, self._disk_get(keys[text])) for text in missing]
                )
                for text, vector in stored:
                    if vector is not None:
                        found[text] = vector
                        self._remember(keys[text], vector)
        missing = [text for text in keys if text not in found]
        if not missing:
            self._record_cached(started_at=started_at, latency_s=time.perf_counter() - clock)
        else:
            batches = [
                missing[start : start + self.batch_size]
                for start in range(0, len(missing), self.batch_size)
            ]
            results = await asyncio.gather(*(self._call(batch) for batch in batches))
            fresh: list[tuple[str, tuple[float, ...]]] = []
            for batch, vectors in zip(batches, results, strict=True):
                for text, vector in zip(batch, vectors, strict=True):
                    found[text] = vector
                    self._remember(keys[text], vector)
                    fresh.append((text, vector))
            if self._cache is not None:
                await asyncio.to_thread(self._disk_put_many, [(keys[t], t, v) for t, v in fresh])
        return [list(found[text]) for text in texts]

    # -- one attempt ------------------------------------------------------------

    def _request(self, ask: list[str]) -> list[str]:
        return ask

    def _answer(self, ask: list[str], response: EmbeddingResponse) -> list[tuple[float, ...]]:
        return self._check_vectors(response.vectors, len(ask))

    def _check_vectors(self, vectors: Any, expected: int) -> list[tuple[float, ...]]:
        if not isinstance(vectors, list) or len(vectors) != expected:
            count = len(vectors) if isinstance(vectors, list) else type(vectors).__name__
            raise InvalidResponseError(
                f"expected {expected} embedding vectors, got {count}", model=self.model
            )
        checked: list[tuple[float, ...]] = []
        for vector in vectors:
            try:
                values = tuple(float(value) for value in vector)
            except (TypeError, ValueError) as error:
                raise InvalidResponseError(
                    f"an embedding vector is not a list of numbers ({error})", model=self.model
                ) from None
            if not values or not all(math.isfinite(value) for value in values):
                raise InvalidResponseError(
                    "an embedding vector is empty or holds NaN/infinity", model=self.model
                )
            checked.append(values)
        return checked

    # -- caches ---------------------------------------------------------------

    def _text_key(self, text: str) -> str:
        return request_key(
            {
                "kind": "embedding",
                "model": self.model,
                "api_base": _litellm.effective_api_base(self.model, self.api_base),
                "text": text,
                "kwargs": public_kwargs(self.litellm_kwargs),
            }
        )

    def _remember(self, key: str, vector: tuple[float, ...]) -> None:
        self._memory[key] = vector
        self._memory.move_to_end(key)
        while len(self._memory) > _LRU_SIZE:
            self._memory.popitem(last=False)

    def _disk_get(self, key: str) -> tuple[float, ...] | None:
        assert self._cache is not None
        value = self._cache.get(key)
        if value is MISSING or not isinstance(value, list) or not value:
            return None
        try:
            return tuple(float(item) for item in value)
        except (TypeError, ValueError):
            return None

    def _disk_put_many(self, entries: list[tuple[str, str, tuple[float, ...]]]) -> None:
        assert self._cache is not None
        for key, text, vector in entries:
            self._cache.put(key, list(vector), {"model": self.model, "text": text})

    # -- transport ------------------------------------------------------------

    async def _prepare(self) -> None:
        await _litellm.import_litellm_async()
        if self._openai_provider is None:
            self._openai_provider = _litellm.uses_openai_provider(self.model)

    async def _transport(self, texts: list[str]) -> EmbeddingResponse:
        """Embed one batch through ``litellm.aembedding``; no retries here.

        Subclasses replace this to answer without a provider (see
        `FakeEmbeddingModel`).
        """
        litellm = _litellm.import_litellm()
        api_key = _litellm.default_api_key(
            self.model, self.api_base, self.api_key, environment=self.environment_keys
        )
        kwargs: dict[str, Any] = {
            "model": self.model,
            "input": texts,
            "timeout": self.timeout,
            "num_retries": 0,
            **self.litellm_kwargs,
        }
        if self.api_base is not None:
            kwargs["api_base"] = self.api_base
        if api_key is not None:
            kwargs["api_key"] = api_key
        if self._openai_provider and "client" not in kwargs:
            try:
                kwargs["client"] = _litellm.no_retry_openai_client(self.api_base, api_key)
            except Exception as error:
                raise _litellm.map_error(error, model=self.model, api_key=api_key) from error
        try:
            response = await litellm.aembedding(**kwargs)
        except Exception as error:
            raise _litellm.map_error(error, model=self.model, api_key=api_key) from error
        try:
            items = sorted(response.data, key=lambda item: _field(item, "index", 0))
            vectors = [_field(item, "embedding", None) for item in items]
        except (AttributeError, TypeError) as error:
            raise InvalidResponseError(
                f"the provider's answer had no embeddings ({error})", model=self.model
            ) from None
        usage = getattr(response, "usage", None)
        return EmbeddingResponse(
            vectors=vectors,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            cost=_litellm.response_cost(response),
        )

    # -- config ---------------------------------------------------------------

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible; the API key is never included."""
        return {
            **self._base_config(),
            "batch_size": self.batch_size,
            **public_kwargs(self.litellm_kwargs),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> EmbeddingModel:
        """Rebuild a model from `get_config` output."""
        return cls(**copy.deepcopy(config))


def _field(item: Any, name: str, default: Any) -> Any:
    if isinstance(item, dict):
        return item.get(name, default)
    return getattr(item, name, default)
