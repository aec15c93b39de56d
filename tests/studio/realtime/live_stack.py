"""A real studio stack in subprocesses, for end-to-end tests and the realtime bench.

`LiveStack` starts daphne and a Celery worker (solo pool) with a given
environment (embedded: SQLite file + SQLite broker + the polling layer;
scaled out: PostgreSQL + Redis broker + channels-redis), migrates the database,
creates a user, a token and a run through `studio.runs.services.start_run`
(so the task goes through the real broker), and follows the run's websocket
with aiohttp as a browser would.

``python -m tests.studio.realtime.live_stack setup <api_base> <epochs> <batch_size>``
is what runs in a subprocess to create the rows; it prints one JSON line.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveStack:
    """daphne + a Celery worker over one database, broker and channel layer.

    Args:
        env: extra environment (DATABASE_URL, CELERY_BROKER_URL, CHANNEL_REDIS_URL...).
        workdir: where logs (and the embedded mode's files) go.
    """

    def __init__(self, env: dict[str, str], workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "studio.settings.local",
            "PYTHONPATH": str(ROOT),
            "STUDIO_VAR_DIR": str(workdir),
            "STUDIO_MEDIA_ROOT": str(workdir / "media"),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "STUDIO_LOG_LEVEL": "WARNING",
            # The stack's providers are scripted servers on this machine: its administrator
            # allows loopback (the stack's own port stays refused, STUDIO_PORT).
            "STUDIO_ALLOWED_OUTGOING": "127.0.0.0/8",
            "STUDIO_PORT": str(self.port),
            **env,
        }
        self.procs: list[subprocess.Popen[bytes]] = []

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def migrate(self) -> None:
        self.manage("migrate", "--noinput")
        sqlite_file = self.workdir / "studio.sqlite3"
        if "DATABASE_URL" not in self.env and sqlite_file.exists():
            # WAL lets the web process read while the worker writes (persistent in the file).
            with contextlib.closing(sqlite3.connect(sqlite_file)) as db:
                db.execute("PRAGMA journal_mode=WAL")

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 (kept open for the child)
        self.procs.append(
            subprocess.Popen(
                argv, env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )  # fmt: skip

    def start(self, *, worker: bool = True) -> None:
        """daphne, and (unless ``worker=False``) a Celery worker; back once they answer."""
        self._spawn(
            "web",
            [
                str(BIN / "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "studio.asgi:application",
            ],
        )
        if worker:
            self._spawn(
                "worker",
                [str(BIN / "celery"), "-A", "studio", "worker", "--pool=solo", "--loglevel=INFO",
                 "--without-gossip", "--without-mingle", "--without-heartbeat"],
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            worker_log = (self.workdir / "worker.log").read_bytes() if worker else b"ready."
            web_up = False
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 0.2),
            ):
                web_up = True
            if web_up and b"ready." in worker_log:
                return
            for proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"a child exited early; logs:\n{self.logs()}")
            time.sleep(0.2)
        raise RuntimeError(f"the stack did not start in 60 s; logs:\n{self.logs()}")

    def logs(self) -> str:
        parts = []
        for name in ("web", "worker"):
            path = self.workdir / f"{name}.log"
            if path.exists():
                parts.append(f"--- {name} ---\n{path.read_text(errors='replace')[-4000:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()

    def setup_run(self, api_base: str, *, epochs: int = 2, batch_size: int = 8) -> dict[str, Any]:
        out = self.manage_module("setup", api_base, str(epochs), str(batch_size))
        return dict(json.loads(out.strip().splitlines()[-1]))

    def setup_deployment(self) -> dict[str, Any]:
        """A new user, its token and a deployment ``capitals`` of a program version."""
        return dict(json.loads(self.manage_module("deployment").strip().splitlines()[-1]))

    def create_token(self) -> str:
        """A new user and its API token, for tests that go through the REST API."""
        return str(json.loads(self.manage_module("token").strip().splitlines()[-1])["token"])

    def manage_module(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "tests.studio.realtime.live_stack", *args],
            env=self.env, cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"setup failed:\n{done.stderr[-3000:]}")
        return done.stdout

    @contextlib.contextmanager
    def running(self, *, worker: bool = True) -> Iterator[LiveStack]:
        self.migrate()
        self.start(worker=worker)
        try:
            yield self
        finally:
            self.stop()


async def follow_run(
    port: int, run_id: int, token: str, *, after: int = 0, limit_s: float = 120.0
) -> list[dict[str, Any]]:
    """Every message of the run's websocket until its terminal state event.

    Each message gets ``received_at`` (the client's clock) added.
    """
    terminal = {"succeeded", "failed", "cancelled"}
    messages: list[dict[str, Any]] = []
    url = f"ws://127.0.0.1:{port}/ws/runs/{run_id}/?after={after}"
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url, origin=f"http://127.0.0.1:{port}") as ws,
    ):
        await ws.send_json({"type": "auth", "token": token})  # never in the URL
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            message = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
            if message.type != aiohttp.WSMsgType.TEXT:
                raise RuntimeError(f"socket closed: {message.type} {message.data!r}")
            data = json.loads(message.data)
            data["received_at"] = time.time()
            messages.append(data)
            if data.get("kind") == "state" and data["payload"].get("state") in terminal:
                return messages
    raise TimeoutError(f"run {run_id} did not finish in {limit_s} s")


def _setup_idle() -> None:
    """A user, a token and a queued run that no worker is asked to train."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from studio.runs.models import Run
    from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

    user = get_user_model().objects.create_user(f"idle{os.getpid()}", password="x" * 20)
    token = Token.objects.create(user=user)
    run = Run.objects.create(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        compile_config=COMPILE_CONFIG,
        fit_config={},
    )
    print(json.dumps({"run": run.pk, "token": token.key}))


def _emit(run_id: int, count: int, rate: float) -> None:
    """Emit ``count`` events at ``rate`` per second, as a worker would (row, then send)."""
    import django

    django.setup()
    from studio.runs.events import RUN_EVENTS

    for index in range(count):
        RUN_EVENTS.emit_sync(run_id, "bench", {"index": index})
        time.sleep(1.0 / rate)


def _token() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(f"api{os.getpid()}", password="x" * 20)
    print(json.dumps({"token": Token.objects.create(user=user).key}))


def _deployment() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from studio.deployments.services import deploy
    from tests.studio.runs.factories import make_version

    user = get_user_model().objects.create_user(f"deploy{os.getpid()}", password="x" * 20)
    version = make_version(user)
    deploy(owner=user, name="capitals", program_version=version)
    token = Token.objects.create(user=user).key
    print(json.dumps({"token": token, "deployment": "capitals", "program_version": version.pk}))


def _setup(api_base: str, epochs: int, batch_size: int) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from studio.runs.services import start_run
    from tests.studio.runs.factories import (
        COMPILE_CONFIG,
        make_dataset,
        make_provider,
        make_version,
    )

    user = get_user_model().objects.create_user(f"live{os.getpid()}", password="x" * 20)
    token = Token.objects.create(user=user)
    run = start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, api_base),
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": epochs, "batch_size": batch_size, "evaluations": 1, "seed": 0},
    )
    print(json.dumps({"run": run.pk, "token": token.key}))


if __name__ == "__main__":
    if sys.argv[1] == "setup":
        _setup(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "token":
        _token()
    elif sys.argv[1] == "deployment":
        _deployment()
    elif sys.argv[1] == "setup-idle":
        _setup_idle()
    elif sys.argv[1] == "emit":
        _emit(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
    else:
        raise SystemExit(f"unknown command {sys.argv[1:]}")
