"""The record of a running local model server: a JSON state file and the lock around it.

One server per machine and configuration: the files are named by the
configuration's key in the cache folder (``$OPTIMIZER_CORE_CACHE_DIR/local_models``,
else ``~/.cache/optimizer_core/local_models``). ``<key>.json`` holds a
`ServerState` (the server's pid, port, the client tokens attached to it, its
lease watcher); ``<key>.lock`` is the `flock` every process takes to start,
attach to, restart or stop it, and the lease watcher takes to end it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

from optimizer_core.exceptions import LocalModelError
from optimizer_core.local_models.lease import pid_alive, token_pid

logger = logging.getLogger(__name__)

CACHE_DIR_ENV = "OPTIMIZER_CORE_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$OPTIMIZER_CORE_CACHE_DIR/local_models``, else ``~/.cache/optimizer_core/local_models``."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured).expanduser() / "local_models"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "optimizer_core" / "local_models"


@dataclasses.dataclass
class ServerState:
    """What the state file records about one running server."""

    pid: int
    start_ticks: int | None
    host: str
    port: int
    log_path: str
    started_at: float
    clients: list[str]
    restarts: int = 0
    watcher_pid: int | None = None
    watcher_start_ticks: int | None = None

    def alive(self) -> bool:
        """Whether the server process runs (the same process: its start time is checked)."""
        return pid_alive(self.pid, self.start_ticks)

    def watched(self) -> bool:
        """Whether its lease watcher runs."""
        return self.watcher_pid is not None and pid_alive(
            self.watcher_pid, self.watcher_start_ticks
        )

    def live_clients(self) -> list[str]:
        """The client tokens whose process is still alive."""
        return [token for token in self.clients if pid_alive(token_pid(token))]


class StateFile:
    """``<key>.json`` and ``<key>.lock`` in ``folder``.

    Args:
        folder: the cache folder (created on first write).
        key: names the files: one configuration, one server.
        lock_timeout: seconds `lock` waits for another process before giving up.
    """

    def __init__(self, folder: Path, key: str, *, lock_timeout: float) -> None:
        self.folder = folder
        self.key = key
        self.lock_timeout = lock_timeout

    @property
    def path(self) -> Path:
        """The JSON state file."""
        return self.folder / f"{self.key}.json"

    @property
    def lock_path(self) -> Path:
        """The file whose `flock` serialises starts, attaches, restarts and stops."""
        return self.folder / f"{self.key}.lock"

    def read(self) -> ServerState | None:
        """The recorded state; None when there is none or it is damaged (logged)."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return ServerState(**raw)
        except FileNotFoundError:
            return None
        except (ValueError, TypeError) as error:
            logger.warning("ignoring a damaged state file %s (%s)", self.path, error)
            return None

    def write(self, state: ServerState) -> None:
        """Replace the state file atomically (a temporary file, then `os.replace`)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(dataclasses.asdict(state)), encoding="utf-8")
        os.replace(temporary, self.path)

    def remove(self) -> None:
        """Delete the state file (no error when it is already gone)."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the lock file's exclusive `flock`.

        Raises:
            LocalModelError: another process held it for more than `lock_timeout`.
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.lock_timeout
        with open(self.lock_path, "a+b") as handle:
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as error:
                    if error.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if time.monotonic() > deadline:
                        raise LocalModelError(
                            f"timed out waiting for the lock {self.lock_path} (another process "
                            "is starting or stopping the server)"
                        ) from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


__all__ = ["CACHE_DIR_ENV", "ServerState", "StateFile", "default_cache_dir"]
