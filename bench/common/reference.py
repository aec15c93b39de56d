"""The two libraries' interpreters: ours (``.venv``) and the reference's (``bench/.venv-ref``).

The reference library, synalinks 0.10.14, needs Python >= 3.12 and brings 195
packages, so it lives in its own venv, built once by ``setup_reference.sh``
(beside this file) with litellm pinned to the version optimizer_core pins.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
SETUP_SCRIPT = Path(__file__).resolve().with_name("setup_reference.sh")
REF_VENV = BENCH / ".venv-ref"
REF_PYTHON = REF_VENV / "bin" / "python"

LIBS = ("optimizer_core", "synalinks")


def our_python() -> Path:
    venv_python = ROOT / ".venv" / "bin" / "python"
    return venv_python if venv_python.exists() else Path(sys.executable)


def interpreter(lib: str) -> Path:
    return our_python() if lib == "optimizer_core" else REF_PYTHON


def workload_env(lib: str) -> dict[str, str]:
    """A workload's environment: litellm offline, a placeholder key, loopback unproxied."""
    env = dict(os.environ)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env.setdefault("OPENAI_API_KEY", "sk-bench-scripted")
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("PYTHONPATH", None)
    if lib == "optimizer_core":
        env["PYTHONPATH"] = str(ROOT)
    return env


def setup_reference() -> bool:
    """Build bench/.venv-ref if needed; False (and a message) when that fails."""
    started = time.perf_counter()
    done = subprocess.run(["bash", str(SETUP_SCRIPT)], check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        print(f"reference setup failed (exit {done.returncode}): synalinks is left out")
        return False
    if elapsed > 5:
        print(f"(reference setup took {elapsed:.0f} s)")
    return True


def reference_pins() -> str | None:
    """The pins the reference venv was built with (its stamp), or None before it is built."""
    stamp = REF_VENV / ".bench-pins"
    return stamp.read_text().strip() if stamp.exists() else None
