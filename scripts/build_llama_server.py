"""Build llama.cpp's ``llama-server`` (the bundled model's server) from PyPI, once per machine.

Usage: python scripts/build_llama_server.py --output .venv/bin/llama-server [-- CMAKE_ARG ...]

``make`` runs this after installing the Python packages. The source is the
llama.cpp that llama-cpp-python's source distribution vendors (``pip download``
from PyPI, the only place the install reaches); only the ``llama-server``
target is compiled, statically linked (no shared library to find at run time),
with the CPU flags the Makefile passes (``LLAMA_CMAKE_ARGS``) and without the
web UI, curl or OpenSSL, so the build needs no network beyond that download.

Only ggml and libllama run per token. The server's own code (HTTP, JSON, chat
templates, the multimodal library it links) is compiled at ``-O1`` instead of
``-O3``: 42 % less compile time for those files, which are two thirds of the
build, so the whole takes about what compiling llama-cpp-python's library took.
A small CMake project (`WRAPPER`) adds llama.cpp as a subdirectory to set that.

The binary is cached in ``$OPTIMIZER_CORE_CACHE_DIR/llama-server/<key>/`` (else
``~/.cache/optimizer_core/llama-server/<key>/``), the key hashing the source
version, the CMake arguments and the machine type: a second ``make``, or a new
virtual environment, copies it in a second instead of compiling again.

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
"""What every build gets: a static server without the web UI or network code."""


def cache_root() -> Path:
    configured = os.environ.get("OPTIMIZER_CORE_CACHE_DIR")
    if configured:
        return Path(configured).expanduser() / "llama-server"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "optimizer_core" / "llama-server"


def cache_key(cmake_args: list[str]) -> str:
    settings = "\n".join([SOURCE_VERSION, platform.machine(), WRAPPER, *BUILD_ARGS, *cmake_args])
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
        [cmake, "--build", str(build_dir), "--target", "llama-server", "--parallel", jobs],
        check=True,
    )
    return build_dir / "bin" / "llama-server"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True, type=Path, help="where to put the binary")
    parser.add_argument("cmake_args", nargs="*", help="extra CMake arguments (CPU flags)")
    args = parser.parse_args(argv)

    folder = cache_root() / cache_key(args.cmake_args)
    cached = folder / "llama-server"
    if not cached.is_file():
        log(
            f"compiling llama.cpp's server ({SOURCE_DISTRIBUTION} {SOURCE_VERSION} source, "
            "once per machine: several minutes)..."
        )
        started = time.monotonic()
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder, prefix="build-") as work:
            source = download_source(Path(work))
            binary = build(source, Path(work) / "build", args.cmake_args)
            partial = folder / "llama-server.partial"
            shutil.copy2(binary, partial)
            partial.replace(cached)  # atomic: a cache entry is whole or absent
        log(f"built in {time.monotonic() - started:.0f}s, cached in {folder}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    partial = args.output.with_name(args.output.name + ".partial")
    shutil.copy2(cached, partial)
    partial.replace(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
