"""A local model's default bound on requests in flight is its server's parallel slots."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from optimizer_core.local_models import LocalLanguageModel, LocalModelServer
from optimizer_core.local_models.server import default_parallel_slots

FAKE_SERVER = str(Path(__file__).with_name("fake_server.py"))


class Slots:
    """A stand-in server: alive, with some parallel slots."""

    running = True

    def __init__(self, parallel_slots: int) -> None:
        self.parallel_slots = parallel_slots

    def ensure_running(self) -> None:
        pass


def test_the_default_server_serves_the_machines_slots() -> None:
    assert LocalModelServer().parallel_slots == default_parallel_slots(os.cpu_count() or 1)
    assert LocalModelServer(parallel=3).parallel_slots == 3


def test_a_command_serves_the_slots_it_is_given() -> None:
    command = ["llama-server", "-m", "{model_path}", "--port", "{port}"]
    assert LocalModelServer(command=[*command, "--parallel", "4"]).parallel_slots == 4
    assert LocalModelServer(command=command, extra_args=["-np", "3"]).parallel_slots == 3
    assert LocalModelServer(command=command, parallel=2).parallel_slots == 2
    # A command that says nothing is assumed to serve one request at a time.
    assert LocalModelServer(command=command).parallel_slots == 1
    templated = [*command, "--parallel", "{parallel}"]
    assert LocalModelServer(command=templated).parallel_slots == default_parallel_slots(
        os.cpu_count() or 1
    )


def test_the_models_bound_defaults_to_the_servers_slots() -> None:
    lm = LocalLanguageModel("openai/local", api_base="http://127.0.0.1:1/v1", server=Slots(3))
    assert lm.max_concurrency == lm.concurrency_bound == 3
    assert lm.get_config()["max_concurrency"] is None
    explicit = LocalLanguageModel(
        "openai/local", api_base="http://127.0.0.1:1/v1", server=Slots(3), max_concurrency=8
    )
    assert explicit.max_concurrency == 8
    # Rebuilt from a config, without its server: one request at a time.
    assert LocalLanguageModel.from_config(lm.get_config()).max_concurrency == 1


def test_a_started_server_hands_out_models_bounded_by_its_slots(tmp_path: Path) -> None:
    command = [sys.executable, FAKE_SERVER, "--host", "{host}", "--port", "{port}"]
    server = LocalModelServer(
        alias="fake",
        command=command,
        cache_dir=tmp_path / "cache",
        watchdog_interval=None,
        start_timeout=10.0,
    )
    with server:
        assert server.language_model().max_concurrency == server.parallel_slots == 1
        assert server.language_model(max_concurrency=2).max_concurrency == 2
