"""The code-reward benchmark runs end to end on a few rows and writes its figures."""

from __future__ import annotations

import json

from bench.code_reward import run as runner


def test_the_benchmark_prints_both_rewards_and_writes_its_results(tmp_path, capsys) -> None:
    output = tmp_path / "code_reward.json"
    args = ["--rows", "12", "--batch-sizes", "1,4", "--repeats", "1", "--start-samples", "1"]
    assert runner.main([*args, "--output", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "ExactMatch p50" in printed and "overhead p50" in printed and "<= 2 ms" in printed
    results = json.loads(output.read_text())
    assert [entry["batch_size"] for entry in results["by_batch_size"]] == [1, 4]
    assert results["by_batch_size"][1]["batches"] == 3
    assert results["start_up"]["start_s_median"] > 0
