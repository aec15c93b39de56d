"""Build llama.cpp's ``llama-server`` and ``llama-quantize`` from PyPI, once per machine.

Usage: python scripts/build_llama_server.py --output .venv/bin/llama-server [-- CMAKE_ARG ...]

``make`` runs this while it installs the Python packages. The source is the
llama.cpp that llama-cpp-python's source distribution vendors (``pip download``
from PyPI, the only place the install reaches); only two targets are compiled,
statically linked (no shared library to find at run time) and without the web
UI, curl or OpenSSL, so the build needs no network beyond that download:
``llama-server``, and beside it ``llama-quantize``, which re-encodes the bundled
model for faster kernels on first use (`optimizer_core.local_models.served_model`;
it shares every library with the server, so it adds seconds to the build).

The CPU's instruction sets are read from ``/proc/cpuinfo`` (`cpu_cmake_args`):
the build uses what this machine has (AVX-512 and its VNNI dot products
included, which make the served model's prompt processing faster), named
option by option instead of ``-march=native`` so that they are part of the
cache key. CMake arguments given on the command line (the Makefile's
``LLAMA_CMAKE_ARGS``) replace the detected ones.

Only ggml and libllama run per token. The server's own code (HTTP, JSON, chat
templates, the multimodal library it links) is compiled at ``-O1`` instead of
``-O3``: 42 % less compile time for those files, which are two thirds of the
build, so the whole takes about what compiling llama-cpp-python's library took.
A small CMake project (`WRAPPER`) adds llama.cpp as a subdirectory to set that.

The binaries are cached in ``$OPTIMIZER_CORE_CACHE_DIR/llama-server/<key>/`` (else
``~/.cache/optimizer_core/llama-server/<key>/``), the key hashing the source
version, the CMake arguments (the instruction sets among them) and the machine
type: a second ``make``, or a new virtual environment, copies them in a second
instead of compiling again, and a machine with other instruction sets builds its own.

Needs a C++17 compiler and CMake >= 3.14 (Ninja used when present); a CMake
missing from the PATH is taken from PyPI into the cache folder. ``make`` runs
this while pip installs the Python packages: it writes nothing into the venv
but the binary at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

SOURCE_DISTRIBUTION = "llama-cpp-python"
SOURCE_VERSION = "0.3.36"
CMAKE_PIN = "cmake==3.31.6"

WRAPPER = """\
cmake_minimum_required(VERSION 3.14)
project(llama_server_build C CXX)
add_subdirectory("{source}" llama.cpp)
foreach(target llama-common-base llama-common mtmd cpp-httplib server-context
               llama-server-impl llama-server)
    if(TARGET ${{target}})
        target_compile_options(${{target}} PRIVATE -O1)
    endif()
endforeach()
"""
"""The CMake project built: llama.cpp, with the server's own code at -O1 (the last -O wins)."""

BUILD_ARGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_COMMON=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # would download the web UI at build time
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
)
"""What every build gets: static binaries without the web UI or network code."""

TARGETS = ("llama-server", "llama-quantize")
"""The binaries built, cached and installed side by side (the first is ``--output``)."""

CPU_OPTIONS = (
    ("avx2", "GGML_AVX2"),
    ("fma", "GGML_FMA"),
    ("f16c", "GGML_F16C"),
    ("bmi2", "GGML_BMI2"),
    ("avx_vnni", "GGML_AVX_VNNI"),
    ("avx512f", "GGML_AVX512"),
    ("avx512vbmi", "GGML_AVX512_VBMI"),
    ("avx512_vnni", "GGML_AVX512_VNNI"),
    ("avx512_bf16", "GGML_AVX512_BF16"),
)
"""x86 ``/proc/cpuinfo`` flags and the ggml option each one turns on.

AMX (``amx_tile``, ``amx_int8``) is left out on purpose: a virtual machine here
listed it, and the server died of SIGILL at its first tile instruction.
"""

AVX512_BASE = ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw")
"""What ggml's ``GGML_AVX512`` compiles for: all five or none."""


def cpu_cmake_args(cpuinfo: str, machine: str) -> list[str]:
    """The ggml CPU options for a machine whose ``/proc/cpuinfo`` reads ``cpuinfo``.

    Off x86-64 (or without a readable cpuinfo) ggml's own ``GGML_NATIVE`` is
    kept. On x86-64 each instruction set the first processor lists turns its
    option on; the AVX-512 extensions only with the whole AVX-512 base.
    """
    if machine.lower() not in ("x86_64", "amd64"):
        return []
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            flags = set(value.split())
            break
    if not flags:
        return []
    has_avx512 = all(flag in flags for flag in AVX512_BASE)
    options = [
        option
        for flag, option in CPU_OPTIONS
        if flag in flags and (has_avx512 or not option.startswith("GGML_AVX512"))
    ]
    return ["-DGGML_NATIVE=OFF", *(f"-D{option}=ON" for option in options)]


def detected_cmake_args() -> list[str]:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return cpu_cmake_args(cpuinfo, platform.machine())


def cache_root() -> Path:
    configured = os.environ.get("OPTIMIZER_CORE_CACHE_DIR")
    if configured:
        return Path(configured).expanduser() / "llama-server"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "optimizer_core" / "llama-server"


def cache_key(cmake_args: list[str]) -> str:
    settings = "\n".join(
        [SOURCE_VERSION, platform.machine(), WRAPPER, *TARGETS, *BUILD_ARGS, *cmake_args]
    )
    return f"{SOURCE_VERSION}-{hashlib.sha256(settings.encode()).hexdigest()[:12]}"


def log(message: str) -> None:
    print(f"llama-server: {message}", flush=True)


def download_source(folder: Path) -> Path:
    """The llama.cpp source tree of llama-cpp-python's sdist, extracted under ``folder``."""
    subprocess.run(
        [
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
            "--no-binary", SOURCE_DISTRIBUTION, f"{SOURCE_DISTRIBUTION}=={SOURCE_VERSION}",
            "--dest", str(folder),
        ],
        check=True,
    )  # fmt: skip
    (archive,) = folder.glob("llama_cpp_python-*.tar.gz")
    prefix = f"{archive.name.removesuffix('.tar.gz')}/vendor/llama.cpp/"
    with tarfile.open(archive) as sdist:
        members = [m for m in sdist.getmembers() if m.name.startswith(prefix)]
        sdist.extractall(folder, members=members, filter="data")
    archive.unlink()
    return folder / prefix


def find_cmake() -> str:
    """CMake from the PATH, else PyPI's, unpacked into the cache (never into the venv,
    which ``make`` is installing packages into meanwhile)."""
    found = shutil.which("cmake")
    if found is not None:
        return found
    tools = cache_root() / CMAKE_PIN.replace("==", "-")
    binary = tools / "cmake" / "data" / "bin" / "cmake"
    if not binary.is_file():
        log(f"no cmake on the PATH; installing {CMAKE_PIN} from PyPI into {tools}")
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(tools), CMAKE_PIN],
            check=True,
        )
    return str(binary)


def build(source: Path, build_dir: Path, cmake_args: list[str]) -> Path:
    """Compile `TARGETS`; returns the folder that holds them."""
    cmake = find_cmake()
    project = build_dir.with_name("project")
    project.mkdir()
    (project / "CMakeLists.txt").write_text(WRAPPER.format(source=source.resolve().as_posix()))
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(
        [cmake, "-S", str(project), "-B", str(build_dir), *generator, *BUILD_ARGS, *cmake_args],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    jobs = str(os.cpu_count() or 2)
    subprocess.run(
        [cmake, "--build", str(build_dir), "--target", *TARGETS, "--parallel", jobs],
        check=True,
    )
    return build_dir / "bin"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--output", required=True, type=Path, help="where to put llama-server (the rest beside it)"
    )
    parser.add_argument(
        "cmake_args", nargs="*", help="CMake arguments (CPU options; default: detected)"
    )
    args = parser.parse_args(argv)
    cmake_args = args.cmake_args or detected_cmake_args()

    folder = cache_root() / cache_key(cmake_args)
    if not all((folder / target).is_file() for target in TARGETS):
        log(
            f"compiling llama.cpp's server ({SOURCE_DISTRIBUTION} {SOURCE_VERSION} source, "
            f"once per machine: several minutes) with {' '.join(cmake_args) or 'defaults'}..."
        )
        started = time.monotonic()
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder, prefix="build-") as work:
            source = download_source(Path(work))
            built = build(source, Path(work) / "build", cmake_args)
            for target in TARGETS:
                install(built / target, folder / target)  # a cache entry is whole or absent
        log(f"built in {time.monotonic() - started:.0f}s, cached in {folder}")
    outputs = [args.output, *(args.output.with_name(target) for target in TARGETS[1:])]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for target, output in zip(TARGETS, outputs, strict=True):
        install(folder / target, output)
    return 0


def install(binary: Path, destination: Path) -> None:
    """Copy ``binary`` to ``destination`` atomically: a reader finds the old file or the new."""
    partial = destination.with_name(destination.name + ".partial")
    shutil.copy2(binary, partial)
    partial.replace(destination)


if __name__ == "__main__":
    sys.exit(main())
