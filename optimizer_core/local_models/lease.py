"""The lease watcher: ends a local model server once no client process is alive.

`LocalModelServer` shares one server per machine between processes: each one
that attaches writes a client token (``"<pid>:<random>"``) into the state
file and removes it at `stop`. A client killed with SIGKILL never stops, so
its token stays behind with a dead pid. Without a watcher the server would
then run on for ever with nobody using it.

The process that starts a server also starts this watcher beside it
(`start_watcher`: the script ``python lease.py ...``, which imports nothing beyond
the standard library, so it costs a few MB and starts at once). Every ``interval`` seconds
it reads the state file; once no client pid has been alive for ``grace``
seconds, it takes the lock the clients take to attach, checks again, stops the
server (SIGTERM, then SIGKILL after 10 s) and removes the state file. It exits
on its own when its server is gone or has been replaced by a restart (whoever
restarts a server starts its watcher).

Usage: python lease.py --state FILE --lock FILE --pid PID [--start-ticks N]
[--grace SECONDS] [--interval SECONDS]
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

STOP_GRACE_S = 10.0


def process_start_ticks(pid: int) -> int | None:
    """The start time of a live, non-zombie process (clock ticks since boot), else None."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2 :].split()
    if not fields or fields[0] in ("Z", "X"):
        return None
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def pid_alive(pid: int, start_ticks: int | None = None) -> bool:
    """Whether ``pid`` runs (not a zombie) and, when given, started at ``start_ticks``."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    ticks = process_start_ticks(pid)
    if ticks is None:
        return not Path("/proc").is_dir()
    return start_ticks is None or ticks == start_ticks


def token_pid(token: str) -> int:
    """The process id in a client token ``"<pid>:<random>"`` (-1 when malformed)."""
    try:
        return int(token.split(":", 1)[0])
    except ValueError:
        return -1


def any_client_alive(clients: list[str]) -> bool:
    return any(pid_alive(token_pid(token)) for token in clients)


def _read_state(path: Path) -> dict[str, Any] | None:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


@contextlib.contextmanager
def _file_lock(path: Path, timeout: float) -> Iterator[bool]:
    """Hold ``path``'s flock; yields False when it could not be taken in time."""
    with open(path, "a+b") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() > deadline:
                    yield False
                    return
                time.sleep(0.05)
        try:
            yield True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _terminate(pid: int, start_ticks: int | None) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while pid_alive(pid, start_ticks) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid, start_ticks):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _log(message: str) -> None:
    print(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} lease watcher: {message}", flush=True)


def watch(
    state_path: Path,
    lock_path: Path,
    pid: int,
    start_ticks: int | None,
    *,
    grace: float,
    interval: float,
) -> str:
    """Watch one server until it is gone, replaced, or ended for want of clients.

    Returns:
        Why the watch ended: ``"gone"``, ``"replaced"`` or ``"orphaned"``.
    """
    last_client_seen = time.monotonic()
    while True:
        if not pid_alive(pid, start_ticks):
            return "gone"
        state = _read_state(state_path)
        if state is None or state.get("pid") != pid:
            return "replaced"
        if any_client_alive(list(state.get("clients") or [])):
            last_client_seen = time.monotonic()
        elif time.monotonic() - last_client_seen >= grace:
            # Under the clients' lock: nobody attaches while we decide.
            with _file_lock(lock_path, timeout=interval + 5.0) as locked:
                if locked:
                    state = _read_state(state_path)
                    if state is None or state.get("pid") != pid:
                        return "replaced"
                    if not any_client_alive(list(state.get("clients") or [])):
                        _log(f"no client process alive for {grace:g}s; stopping pid {pid}")
                        _terminate(pid, start_ticks)
                        with contextlib.suppress(FileNotFoundError):
                            state_path.unlink()
                        return "orphaned"
                    last_client_seen = time.monotonic()
        time.sleep(interval)


def start_watcher(
    *,
    state_path: Path,
    lock_path: Path,
    log_path: Path,
    pid: int,
    start_ticks: int | None,
    grace: float,
) -> subprocess.Popen[bytes]:
    """Start the watcher of server ``pid`` (this file as a script, in a session of its own).

    It outlives the process that starts it: that is its purpose. Its output goes
    to the server's log.

    Args:
        state_path: the server's state file (its client tokens).
        lock_path: the lock file the clients take to attach.
        log_path: the server's log.
        pid: the server's process id.
        start_ticks: the server's start time (`process_start_ticks`), if known.
        grace: seconds without a live client before the server is stopped.

    Raises:
        OSError: the watcher could not be started.
    """
    interval = min(1.0, max(0.05, grace / 5))
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--state", str(state_path),
        "--lock", str(lock_path),
        "--pid", str(pid),
        "--grace", f"{grace:g}",
        "--interval", f"{interval:g}",
    ]  # fmt: skip
    if start_ticks is not None:
        command += ["--start-ticks", str(start_ticks)]
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def end_watcher(watcher: subprocess.Popen[bytes]) -> None:
    """Stop a watcher this process started (SIGTERM, then SIGKILL after 5 s) and reap it."""
    if watcher.poll() is not None:
        return
    watcher.terminate()
    try:
        watcher.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        watcher.kill()
        watcher.wait(timeout=5.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", required=True, type=Path)
    parser.add_argument("--lock", required=True, type=Path)
    parser.add_argument("--pid", required=True, type=int)
    parser.add_argument("--start-ticks", type=int, default=None)
    parser.add_argument("--grace", type=float, default=30.0)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args(argv)
    # Its own process group already (start_new_session); SIGTERM ends the watch only.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    why = watch(
        args.state,
        args.lock,
        args.pid,
        args.start_ticks,
        grace=args.grace,
        interval=args.interval,
    )
    if why == "orphaned":
        _log("stopped the server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
