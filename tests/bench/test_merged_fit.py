"""Smoke tests of the three-module fit benchmark (bench/merged_fit): its table and workload."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench.common.reference import interpreter, workload_env
from bench.fit_overhead import responder
from bench.merged_fit import run as runner

ROOT = Path(__file__).resolve().parents[2]


def test_table_ratios_and_targets() -> None:
    def run(lib: str, wall: float, calls: int) -> dict[str, Any]:
        return {"lib": lib, "latency_s": 0.1, "fit_wall_s": wall, "lm_calls": calls}

    runs = [run("optimizer_core", 2.0, 90), run("synalinks", 8.0, 100), run("synalinks", 9.0, 100)]
    rows = {row["metric"]: row for row in runner.build_table(runs, [0.1])}
    wall = rows["fit wall time @ 100 ms"]
    assert (wall["optimizer_core"], wall["synalinks"], wall["ratio"]) == (2.0, 8.5, 2.0 / 8.5)
    assert wall["target_ratio_max"] == 0.5 and wall["meets_target"] is True
    calls = rows["LM calls @ 100 ms"]
    assert calls["ratio"] == pytest.approx(0.9) and calls["meets_target"] is True
    assert "NO" not in runner.format_table(list(rows.values()))


@pytest.mark.litellm
def test_the_workload_trains_a_program_whose_last_generator_reads_both_inputs() -> None:
    from optimizer_core.testing.scripted_server import ScriptedServer

    with ScriptedServer(responder.respond) as server:
        done = subprocess.run(
            [
                str(interpreter("optimizer_core")),
                str(ROOT / "bench" / "merged_fit" / "workload.py"),
                "--lib", "optimizer_core", "--api-base", server.base_url,
                "--rows", "10", "--epochs", "1", "--batch-size", "4",
            ],
            capture_output=True, text=True, env=workload_env("optimizer_core"), cwd=ROOT,
            timeout=180,
        )  # fmt: skip
        requests = server.stats.requests
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(result["history"]["val_reward"]) == 1
    shown = [json.loads(r["messages"][-1]["content"]) for r in requests]
    assert any(set(message) == {"query", "draft"} for message in shown)
