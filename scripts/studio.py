"""Run the studio on one machine: `python scripts/studio.py` (the embedded default).

Applies the migrations, creates the demo account when the `ensure_demo` command
exists, then starts and supervises four child processes:

- daphne, serving HTTP and websockets on 127.0.0.1:8000;
- a Celery worker for the ``training`` queue (runs), and one for the ``short``
  queue (dataset validation, tries, sweeps), so that short work never waits
  behind a training run (solo pool by default; ``--pool threads``);
- Celery beat, alone in its process (exactly one scheduler, whatever happens to
  the workers), sweeping stale runs every minute.

Nothing else needs to run: the database is SQLite, Celery's broker is SQLite
through SQLAlchemy, and live run events reach the web process through the
`RunEvent` table (`studio.realtime.layers`). A worker or beat that dies is
restarted (a run resumes from its last checkpoint); if daphne dies, everything
stops.

Each child runs in a process group of its own, and stopping a child signals its
whole group, so nothing a child started in its group outlives it. Ctrl-C,
SIGTERM or SIGHUP stops everything: SIGTERM to every group first, SIGKILL after
a grace period. On Linux each child also gets SIGKILL from the kernel when this
launcher dies (``PR_SET_PDEATHSIG``), so even a launcher killed with SIGKILL
leaves nothing running. (The bundled model's server, started by a worker on
first use, runs in a session of its own and ends by its lease: see
`optimizer_core.local_models.lease`.)
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import dataclasses
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRACE_S = float(os.environ.get("STUDIO_STOP_GRACE_S", "15"))
MAX_WORKER_RESTARTS = 5
TRAINING_QUEUE = "training"
SHORT_QUEUE = "short"
PR_SET_PDEATHSIG = 1


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


def _bin(name: str) -> str:
    candidate = Path(sys.executable).with_name(name)
    return str(candidate) if candidate.exists() else name


def _manage(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], env=_env(), cwd=ROOT)


def _has_command(name: str) -> bool:
    found = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "help", "--commands"],
        env=_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return name in found.stdout.split()


def _load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None


# Loaded here, not in the child between fork and exec, where only simple calls are safe.
_LIBC = _load_libc()


def _die_with_launcher(launcher: int) -> None:
    """In the child before exec: get SIGKILL when the launcher dies, even by SIGKILL."""
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != launcher:
        # The launcher died before the prctl took effect.
        os.kill(os.getpid(), signal.SIGKILL)


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


@dataclasses.dataclass
class Child:
    """One supervised command, in a process group of its own (its pid is the group id)."""

    name: str
    argv: list[str]
    restart: bool
    """Restarted when it exits; otherwise its exit stops the studio."""
    process: subprocess.Popen[bytes] | None = None
    exits: list[float] = dataclasses.field(default_factory=list)

    def start(self) -> None:
        launcher = os.getpid()
        # A session (so a process group) of its own: Ctrl-C reaches only this
        # launcher, which stops the children in order, and a stop reaches
        # everything the child started in its group.
        self.process = subprocess.Popen(
            self.argv,
            env=_env(),
            cwd=ROOT,
            start_new_session=True,
            preexec_fn=lambda: _die_with_launcher(launcher),
        )

    @property
    def pgid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def exited(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def kill_leftovers(self) -> None:
        """After the child itself exited: SIGKILL what it left in its group."""
        if self.process is not None:
            _signal_group(self.pgid, signal.SIGKILL)


def _stop(children: list[Child]) -> None:
    """SIGTERM every child's group, SIGKILL the groups still there after `GRACE_S`."""
    running = [c for c in children if c.process is not None]
    for child in running:
        _signal_group(child.pgid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while running and time.monotonic() < deadline:
        for child in running:
            child.exited()  # reap the leader, so a zombie does not hold the group
        running = [c for c in running if _group_exists(c.pgid)]
        time.sleep(0.05)
    for child in running:
        print(f"studio: {child.name} did not stop in {GRACE_S:.0f} s; killing it", flush=True)
        _signal_group(child.pgid, signal.SIGKILL)
    for child in children:
        if child.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=5.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--pool", choices=["solo", "threads"], default="solo")
    parser.add_argument("--concurrency", type=int, default=2, help="threads pool size")
    parser.add_argument("--no-worker", action="store_true", help="web server only")
    args = parser.parse_args(argv)

    var = Path(os.environ.get("STUDIO_VAR_DIR", ROOT / "var"))
    var.mkdir(parents=True, exist_ok=True)
    if _manage("migrate", "--noinput").returncode != 0:
        return 1
    # The admin's CSS and the API docs' assets, served by WhiteNoise.
    if _manage("collectstatic", "--noinput", "--verbosity", "0").returncode != 0:
        return 1
    database = var / "studio.sqlite3"
    if not os.environ.get("DATABASE_URL") and database.exists():
        # WAL lets the web server read while the worker writes; the mode is kept in the file.
        with contextlib.closing(sqlite3.connect(database)) as db:
            db.execute("PRAGMA journal_mode=WAL")
    if _has_command("ensure_demo") and _manage("ensure_demo").returncode != 0:
        return 1

    web_argv = [_bin("daphne"), "-b", args.host, "-p", str(args.port), "studio.asgi:application"]

    def worker_argv(queue: str) -> list[str]:
        argv = [
            _bin("celery"), "-A", "studio", "worker", "--pool", args.pool,
            "--loglevel", "INFO", "-Q", queue, "-n", f"{queue}@%h",
        ]  # fmt: skip
        if args.pool == "threads":
            argv += ["--concurrency", str(args.concurrency)]
        return argv

    beat_argv = [
        _bin("celery"), "-A", "studio", "beat", "--loglevel", "INFO",
        "--schedule", str(var / "celerybeat-schedule"),
    ]  # fmt: skip

    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    children = [Child("web", web_argv, restart=False)]
    if not args.no_worker:
        children += [
            Child(f"{TRAINING_QUEUE} worker", worker_argv(TRAINING_QUEUE), restart=True),
            Child(f"{SHORT_QUEUE} worker", worker_argv(SHORT_QUEUE), restart=True),
            Child("beat", beat_argv, restart=True),
        ]
    code = 0
    try:
        for child in children:
            child.start()
        print(f"studio: http://{args.host}:{args.port}/  (Ctrl-C to stop)", flush=True)
        while not stopping:
            time.sleep(0.5)
            for child in children:
                if stopping or not child.exited():
                    continue
                assert child.process is not None
                returncode = child.process.returncode
                child.kill_leftovers()
                if not child.restart:
                    print(f"studio: {child.name} exited ({returncode}); stopping", flush=True)
                    code = 1
                    stopping = True
                    break
                now = time.monotonic()
                child.exits = [t for t in child.exits if now - t < 60] + [now]
                if len(child.exits) > MAX_WORKER_RESTARTS:
                    print(f"studio: the {child.name} keeps exiting; stopping", flush=True)
                    code = 1
                    stopping = True
                    break
                print(f"studio: {child.name} exited ({returncode}); restarting", flush=True)
                child.start()
    finally:
        _stop(children)
    return code


if __name__ == "__main__":
    sys.exit(main())
