"""`scripts/studio.py` (what `make run` starts) supervises process groups and leaves nothing.

The real launcher runs on a temporary var folder and a free port: daphne, a
worker per queue (``training``, ``short``) and one beat. Killing a worker with
SIGKILL gets it restarted, with beat still single; stopping the launcher, by
SIGTERM or SIGKILL, leaves no process it started. Processes are found by
walking /proc (parent pid, process group, command line).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="walks /proc (Linux)"),
]


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    state: str
    cmdline: str


def processes() -> list[Proc]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        found.append(Proc(int(entry.name), int(fields[1]), int(fields[2]), fields[0], cmdline))
    return found


def living(pred: Callable[[Proc], bool]) -> list[Proc]:
    return [p for p in processes() if p.state not in ("Z", "X") and pred(p)]


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Studio:
    """The launcher in a subprocess, and what it started."""

    def __init__(self, var: Path) -> None:
        self.var = var
        self.port = free_port()
        self.log = var / f"studio-{self.port}.log"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "studio.settings.local",
            "STUDIO_VAR_DIR": str(var),
            "STUDIO_MEDIA_ROOT": str(var / "media"),
            "STUDIO_STOP_GRACE_S": "10",
            "STUDIO_LOG_LEVEL": "WARNING",
        }
        with open(self.log, "ab") as log:
            self.launcher = subprocess.Popen(
                [sys.executable, str(ROOT / "scripts" / "studio.py"), "--port", str(self.port)],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                # As a shell runs it: a process group of its own, apart from pytest's.
                start_new_session=True,
            )
        self.seen: set[Proc] = set()

    def children(self) -> list[Proc]:
        found = living(lambda p: p.ppid == self.launcher.pid)
        self.seen.update(found)
        return found

    def child(self, marker: str) -> list[Proc]:
        return [p for p in self.children() if marker in p.cmdline]

    def beats(self) -> list[Proc]:
        """Every beat process on this machine that uses this studio's schedule file."""
        schedule = str(self.var / "celerybeat-schedule")
        return living(lambda p: " beat " in p.cmdline and schedule in p.cmdline)

    def wait_started(self) -> None:
        def started() -> bool:
            assert self.launcher.poll() is None, self.log.read_text()[-3000:]
            names = [p.cmdline for p in self.children()]
            return (
                sum("daphne" in c for c in names) == 1
                and sum("-Q training" in c for c in names) == 1
                and sum("-Q short" in c for c in names) == 1
                and sum(" beat " in c for c in names) == 1
            )

        wait_for(started, 180, "the launcher's four children")

    def leftovers(self) -> list[Proc]:
        """Living processes the studio started: its children, their groups, its port or folder."""
        pids = {p.pid for p in self.seen} | {self.launcher.pid}
        groups = {p.pgid for p in self.seen} - {os.getpgrp()}
        return living(
            lambda p: (
                p.pid in pids
                or p.pgid in groups
                or (str(self.var) in p.cmdline and p.pid != os.getpid())
            )
        )

    def kill_all(self) -> None:
        for proc in self.leftovers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        self.launcher.wait(timeout=10)


@pytest.fixture
def var(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


@pytest.fixture
def studio(var: Path) -> Iterator[Studio]:
    started = Studio(var)
    try:
        started.wait_started()
        yield started
    finally:
        started.kill_all()


def test_a_killed_worker_is_restarted_with_beat_single_and_sigterm_stops_all(
    studio: Studio,
) -> None:
    (worker,) = studio.child("-Q training")
    (beat,) = studio.beats()
    groups = {p.pgid for p in studio.children()}
    assert len(groups) == 4, "each child in a process group of its own"
    assert studio.launcher.pid not in groups

    os.kill(worker.pid, signal.SIGKILL)

    def replaced() -> bool:
        workers = studio.child("-Q training")
        return len(workers) == 1 and workers[0].pid != worker.pid

    wait_for(replaced, 60, "a new training worker")
    assert [p.pid for p in studio.beats()] == [beat.pid], "one beat, the same one"
    assert len(studio.child("-Q short")) == 1

    studio.launcher.send_signal(signal.SIGTERM)
    assert studio.launcher.wait(timeout=60) == 0
    wait_for(lambda: not studio.leftovers(), 15, "every process the studio started to end")


def test_a_launcher_killed_with_sigkill_leaves_nothing_running(studio: Studio) -> None:
    started = studio.children()
    assert len(started) == 4
    os.kill(studio.launcher.pid, signal.SIGKILL)
    studio.launcher.wait(timeout=10)
    wait_for(
        lambda: not studio.leftovers(),
        15,
        f"the children of a dead launcher to end: {studio.leftovers()}",
    )
    assert not studio.beats()
