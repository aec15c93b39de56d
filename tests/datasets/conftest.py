"""Fixtures for the data set tests: the shared data folder, an empty cache, no network."""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from optimizer_core.datasets import banking77, gsm8k
from tests.support import BANKING77_FILES, GSM8K_FILES, require_shared


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test gets an empty cache, no data dir, and downloads that fail at once."""
    monkeypatch.setenv("OPTIMIZER_CORE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPTIMIZER_CORE_DATA_DIR", raising=False)
    unreachable = f"http://127.0.0.1:{_closed_port()}/"
    monkeypatch.setattr(gsm8k, "BASE_URL", unreachable)
    monkeypatch.setattr(banking77, "BASE_URL", unreachable)
    yield


@pytest.fixture
def shared_data(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point OPTIMIZER_CORE_DATA_DIR at the shared data folder and return it.

    Skips (naming the missing files) in a clone without ``../shared`` beside it.
    """
    data = require_shared(*GSM8K_FILES, *BANKING77_FILES) / "data"
    monkeypatch.setenv("OPTIMIZER_CORE_DATA_DIR", str(data))
    return data


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """The (empty) cache root the `isolated` fixture set."""
    return tmp_path / "cache"


@pytest.fixture
def serve_folder() -> Iterator[Callable[[Path], str]]:
    """Serve a folder over HTTP on 127.0.0.1; returns a function giving its base URL."""
    servers: list[ThreadingHTTPServer] = []

    def start(folder: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass
