"""Test helpers that ship with the library: a scripted OpenAI-compatible server.

The fake models live in `optimizer_core.language_models` (`FakeLanguageModel`,
`FakeEmbeddingModel`); this package adds `ScriptedServer`, a local HTTP server
that litellm can talk to, for end-to-end tests, demos and benchmarks.
The names are imported on first use so that
``python -m optimizer_core.testing.scripted_server`` runs the module only once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from optimizer_core.testing.scripted_server import (
        ScriptedServer,
        ServerStats,
        default_responder,
        schema_filler,
    )

__all__ = ["ScriptedServer", "ServerStats", "default_responder", "schema_filler"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        module = importlib.import_module("optimizer_core.testing.scripted_server")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
