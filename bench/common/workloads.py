"""Running a workload script (one training run) in a library's interpreter.

A workload prints one JSON object as its last ``{``-line; the runner hosts the
scripted server and reads the server's counters itself.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class WorkloadRun:
    """What one workload process gave: its report, or why there is none."""

    report: dict[str, Any] | None
    error: dict[str, Any] | None
    stderr: str
    wall_s: float
    timed_out: bool = False


def run_workload(
    command: list[str], *, env: dict[str, str], cwd: Path, timeout: float
) -> WorkloadRun:
    """Run `command`; its last JSON line is the report.

    ``error`` (``{"error", "stderr_tail"}``) is set when it timed out, exited
    non-zero or printed no JSON line.
    """
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
        )
    except subprocess.TimeoutExpired as expired:
        stderr = expired.stderr or b""
        tail = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
        return WorkloadRun(
            report=None,
            error={"error": f"timed out after {timeout} s", "stderr_tail": tail[-2000:]},
            stderr=tail,
            wall_s=time.perf_counter() - started,
            timed_out=True,
        )
    wall_s = time.perf_counter() - started
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return WorkloadRun(
            report=None,
            error={
                "error": f"workload exited {done.returncode}",
                "stderr_tail": done.stderr[-3000:],
            },
            stderr=done.stderr,
            wall_s=wall_s,
        )
    return WorkloadRun(report=json.loads(lines[-1]), error=None, stderr=done.stderr, wall_s=wall_s)
