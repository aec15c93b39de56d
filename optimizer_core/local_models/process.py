"""The server process: its command line, its start until it answers, its health, its end.

A server is started in a session of its own (it must outlive nothing but be
signalled apart from its parent's group), with its output appended to a log
file that is moved to ``<name>.log.1`` at a start once it passes 10 MB. It is
ready once ``GET /v1/models`` answers 2xx; start errors quote the end of its log.
A process started here is ended through its `subprocess.Popen` handle (so it
is reaped); one started by another process, through its pid, checked against
its start time so a reused pid is never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

from optimizer_core.exceptions import LocalModelError
from optimizer_core.local_models.lease import pid_alive, process_start_ticks

LOG_TAIL_CHARS = 2000
STOP_GRACE_S = 10.0
LOG_ROTATE_BYTES = 10_000_000

LLAMA_SERVER_ARGS = (
    "--model", "{model_path}",
    "--alias", "{alias}",
    "--host", "{host}",
    "--port", "{port}",
    "--threads", "{n_threads}",
    "--threads-batch", "{n_threads}",
    "--parallel", "{parallel}",
    "--ctx-size", "{ctx_size}",
    "--cont-batching",
    "--no-webui",
    "--cache-ram", "256",
)  # fmt: skip
"""llama.cpp's ``llama-server`` arguments (after the binary's path), with the
placeholders `fill_command` replaces. ``--ctx-size`` is the whole KV cache, split
evenly between the ``--parallel`` slots (``{ctx_size}`` is ``n_ctx`` times the
slots, so each request gets ``n_ctx``). ``--cache-ram`` bounds the prompt cache
kept in RAM for idle slots (8 GB by default there; 256 MB hold about 11,000
tokens of SmolLM2-135M)."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def port_in_use(host: str, port: int) -> bool:
    """Whether something accepts connections on ``host:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((host, port)) == 0


def fill_command(template: Sequence[str], values: Mapping[str, str]) -> list[str]:
    """``template`` with each ``{placeholder}`` of ``values`` replaced in every argument."""
    built = []
    for arg in template:
        for placeholder, value in values.items():
            arg = arg.replace(placeholder, value)
        built.append(arg)
    return built


def healthy(host: str, port: int, *, timeout: float) -> bool:
    """Whether the server at ``host:port`` answers ``GET /v1/models`` with a 2xx."""
    url = f"http://{host}:{port}/v1/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return bool(200 <= response.status < 300)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def log_tail(log_path: Path) -> str:
    """The last characters of a server's log, for an error message."""
    try:
        text = log_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return text[-LOG_TAIL_CHARS:]


def launch(
    command: list[str],
    *,
    host: str,
    port: int,
    log_path: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start a server and wait until it answers.

    Args:
        command: the server's command line.
        env: variables set for it on top of this process's environment.
        host: where it listens.
        port: its port (refused when something already listens there).
        log_path: the file its output is appended to.
        timeout: seconds to wait for its first healthy answer.

    Returns:
        The running server process.

    Raises:
        LocalModelError: the port is taken, the command cannot run, the server
            exited, or it did not answer within `timeout` (then it is ended);
            the message quotes the end of its log.
    """
    if port_in_use(host, port):
        raise LocalModelError(
            f"port {port} on {host} is already in use by another program; "
            "pass another `port` (or None for a free one)"
        )
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        if log_path.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(log_path, log_path.with_suffix(".log.1"))
    with open(log_path, "ab") as log:
        log.write(f"\n--- {time.strftime('%Y-%m-%d %H:%M:%S')} {command}\n".encode())
        log.flush()
        try:
            process = subprocess.Popen(
                command,
                env=None if env is None else {**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            raise LocalModelError(
                f"could not run the server command {command[0]!r}: {error}"
            ) from error
    deadline = time.monotonic() + timeout
    while True:
        code = process.poll()
        if code is not None:
            raise LocalModelError(
                f"the local model server exited with code {code} while starting; "
                f"see its log {log_path}:\n{log_tail(log_path)}"
            )
        if healthy(host, port, timeout=1.0):
            return process
        if time.monotonic() > deadline:
            terminate(process.pid, None, process=process)
            raise LocalModelError(
                f"the local model server did not answer GET /v1/models within "
                f"{timeout:g}s; see its log {log_path}:\n{log_tail(log_path)}"
            )
        time.sleep(0.1)


def running(pid: int, start_ticks: int | None, *, process: subprocess.Popen[bytes] | None) -> bool:
    """Whether the server ``pid`` runs; through ``process`` when this process started it."""
    if process is not None and process.pid == pid:
        # A killed multi-threaded process shows as a zombie a few
        # milliseconds before waitpid() can reap it: count that as dead.
        return process.poll() is None and (
            process_start_ticks(pid) is not None or not Path("/proc").is_dir()
        )
    return pid_alive(pid, start_ticks)


def terminate(
    pid: int, start_ticks: int | None, *, process: subprocess.Popen[bytes] | None
) -> None:
    """End the server ``pid``: SIGTERM, then SIGKILL after `STOP_GRACE_S` seconds.

    Through ``process`` (waited for, so reaped) when this process started it;
    otherwise by pid, only while it is the process that started at ``start_ticks``.
    """
    if process is not None and process.pid == pid:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5.0)
        return
    if not pid_alive(pid, start_ticks):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while pid_alive(pid, start_ticks) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid, start_ticks):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def reap(process: subprocess.Popen[bytes] | None) -> None:
    """Collect an exited server this process started (no zombie left behind)."""
    if process is not None:
        with contextlib.suppress(Exception):
            process.wait(timeout=5.0)


__all__ = [
    "LLAMA_SERVER_ARGS",
    "fill_command",
    "free_port",
    "healthy",
    "launch",
    "log_tail",
    "port_in_use",
    "reap",
    "running",
    "terminate",
]
