"""Run the studio on one machine: `python scripts/studio.py` (the embedded default).

Applies the migrations, creates the demo account when the `ensure_demo` command
exists, then starts and supervises two child processes:

- daphne, serving HTTP and websockets on 127.0.0.1:8000;
- a Celery worker (solo pool by default; ``--pool threads``) with an embedded
  beat that sweeps stale runs every minute.

Nothing else needs to run: the database is SQLite, Celery's broker is SQLite
through SQLAlchemy, and live run events reach the web process through the
`RunEvent` table (`studio.realtime.layers`). A worker that dies is restarted
(its run resumes from its last checkpoint); if daphne dies, everything stops.
Ctrl-C (or SIGTERM) stops both children: SIGTERM first, SIGKILL after a grace
period.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRACE_S = 15.0
MAX_WORKER_RESTARTS = 5


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


def _start(argv: list[str]) -> subprocess.Popen[bytes]:
    # A session of its own: Ctrl-C reaches only this launcher, which then
    # stops the children in order.
    return subprocess.Popen(argv, env=_env(), cwd=ROOT, start_new_session=True)


def _stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
    for proc in children.values():
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    for name, proc in children.items():
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"studio: {name} did not stop in {GRACE_S:.0f} s; killing it", flush=True)
            proc.kill()
            proc.wait()


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
    worker_argv = [
        _bin("celery"), "-A", "studio", "worker", "--pool", args.pool,
        "--loglevel", "INFO", "-B", "--schedule", str(var / "celerybeat-schedule"),
    ]  # fmt: skip
    if args.pool == "threads":
        worker_argv += ["--concurrency", str(args.concurrency)]

    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    children: dict[str, subprocess.Popen[bytes]] = {"web": _start(web_argv)}
    if not args.no_worker:
        children["worker"] = _start(worker_argv)
    print(f"studio: http://{args.host}:{args.port}/  (Ctrl-C to stop)", flush=True)
    restarts: list[float] = []
    code = 0
    try:
        while not stopping:
            time.sleep(0.5)
            if children["web"].poll() is not None:
                print(f"studio: web server exited ({children['web'].returncode})", flush=True)
                code = 1
                break
            worker = children.get("worker")
            if worker is not None and worker.poll() is not None:
                now = time.monotonic()
                restarts = [t for t in restarts if now - t < 60] + [now]
                if len(restarts) > MAX_WORKER_RESTARTS:
                    print("studio: the worker keeps exiting; stopping", flush=True)
                    code = 1
                    break
                print(f"studio: worker exited ({worker.returncode}); restarting", flush=True)
                children["worker"] = _start(worker_argv)
    finally:
        _stop(children)
    return code


if __name__ == "__main__":
    sys.exit(main())
