"""A local model server does not outlive its client processes (the lease watcher).

The starter and the clients run `fake_server.py` through `command=`, so no
model is needed. A client killed with SIGKILL never detaches; the watcher
started beside the server stops it once no client process is alive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from optimizer_core.local_models import LocalModelServer
from optimizer_core.local_models.lease import pid_alive
from tests.local_models.test_server import fake_command, models_status, wait_gone

REPO_ROOT = Path(__file__).resolve().parents[2]
ORPHAN_TIMEOUT = 1.0

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")


def make_server(cache: Path, **kwargs: object) -> LocalModelServer:
    return LocalModelServer(
        alias="fake",
        command=fake_command(),
        cache_dir=cache,
        watchdog_interval=None,
        start_timeout=10.0,
        orphan_timeout=kwargs.pop("orphan_timeout", ORPHAN_TIMEOUT),
        **kwargs,  # type: ignore[arg-type]
    )


def client_process(cache: Path) -> tuple[subprocess.Popen[str], dict[str, object]]:
    """Another process that starts (or attaches to) the server, reports it, then waits."""
    script = textwrap.dedent(
        f"""
        import json, time
        from optimizer_core.local_models import LocalModelServer
        server = LocalModelServer(alias="fake", command={fake_command()!r},
                                  cache_dir={str(cache)!r}, watchdog_interval=None,
                                  start_timeout=10.0, orphan_timeout={ORPHAN_TIMEOUT!r})
        server.start()
        print(json.dumps({{"pid": server.pid, "api_base": server.api_base,
                          "state": str(server.state_path)}}), flush=True)
        time.sleep(600)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.kill()
        process.wait()
        raise AssertionError("the client process printed nothing")
    return process, json.loads(line)


@pytest.fixture
def starter(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], dict[str, object]]]:
    process, info = client_process(tmp_path / "cache")
    try:
        yield process, info
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        state = Path(str(info["state"]))
        if state.exists():
            raw = json.loads(state.read_text())
            for pid in (raw.get("pid"), raw.get("watcher_pid")):
                if pid and pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)


def kill_starter(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_a_server_whose_starter_is_killed_ends_within_the_orphan_timeout(starter) -> None:
    process, info = starter
    server_pid = int(info["pid"])
    assert models_status(str(info["api_base"])) == 200
    state = json.loads(Path(str(info["state"])).read_text())
    watcher_pid = state["watcher_pid"]
    assert watcher_pid and pid_alive(watcher_pid, state["watcher_start_ticks"])

    kill_starter(process)
    started = time.monotonic()
    assert wait_gone(server_pid, timeout=ORPHAN_TIMEOUT + 10.0)
    assert time.monotonic() - started >= ORPHAN_TIMEOUT * 0.5
    assert wait_gone(watcher_pid, timeout=5.0)
    assert not Path(str(info["state"])).exists()


def test_a_server_lives_while_another_client_process_does(starter, tmp_path: Path) -> None:
    process, info = starter
    server_pid = int(info["pid"])
    attached = make_server(tmp_path / "cache").start()
    try:
        assert attached.pid == server_pid
        kill_starter(process)
        time.sleep(ORPHAN_TIMEOUT * 3)
        assert attached.running, "an attached client holds the lease"
        assert models_status(attached.api_base) == 200
    finally:
        attached.stop()
    assert wait_gone(server_pid)


def test_a_client_attaching_to_a_server_without_watcher_starts_one(starter, tmp_path) -> None:
    process, info = starter
    state_path = Path(str(info["state"]))
    old_watcher = json.loads(state_path.read_text())["watcher_pid"]
    os.kill(old_watcher, signal.SIGKILL)
    assert wait_gone(old_watcher)

    second, second_info = client_process(tmp_path / "cache")
    try:
        assert second_info["pid"] == info["pid"]
        new_watcher = json.loads(state_path.read_text())["watcher_pid"]
        assert new_watcher != old_watcher and pid_alive(new_watcher)
        # Both clients die without stopping: the new watcher ends the server.
        kill_starter(process)
        kill_starter(second)
        assert wait_gone(int(str(info["pid"])), timeout=ORPHAN_TIMEOUT + 10.0)
        assert wait_gone(new_watcher, timeout=5.0)
    finally:
        if second.poll() is None:
            second.kill()
        second.wait()


def test_stop_ends_the_watcher_with_the_server(tmp_path: Path) -> None:
    server = make_server(tmp_path / "cache").start()
    watcher = json.loads(server.state_path.read_text())["watcher_pid"]
    pid = server.pid
    assert pid is not None
    server.stop()
    assert wait_gone(pid) and wait_gone(watcher)


def test_a_crash_restart_gets_a_new_watcher(tmp_path: Path) -> None:
    with make_server(tmp_path / "cache") as server:
        first = json.loads(server.state_path.read_text())["watcher_pid"]
        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert wait_gone(pid)
        server.ensure_running()
        second = json.loads(server.state_path.read_text())["watcher_pid"]
        assert second != first and pid_alive(second)
        assert wait_gone(first, timeout=5.0), "the old server's watcher leaves with it"


def test_no_watcher_without_orphan_timeout(tmp_path: Path) -> None:
    with make_server(tmp_path / "cache", orphan_timeout=None) as server:
        assert json.loads(server.state_path.read_text())["watcher_pid"] is None


def test_orphan_timeout_is_validated_and_round_trips(tmp_path: Path) -> None:
    for bad in (0, -1.0, True, "10"):
        with pytest.raises(ValueError, match="`orphan_timeout`"):
            make_server(tmp_path, orphan_timeout=bad)
    server = make_server(tmp_path, orphan_timeout=12.5)
    assert LocalModelServer.from_config(server.get_config()).orphan_timeout == 12.5
