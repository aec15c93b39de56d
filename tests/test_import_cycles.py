"""scripts/check_import_cycles.py: finds import cycles (function-level ones too), says where."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from textwrap import dedent

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "check_import_cycles.py"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")


def check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


ACYCLIC = {
    "pkg/__init__.py": "from pkg.program import Program\n",
    "pkg/trainer.py": "import json\n\nclass Trainer:\n    pass\n",
    "pkg/program.py": "from pkg.trainer import Trainer\n\nclass Program(Trainer):\n    pass\n",
    "pkg/optimizer.py": """\
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkg.program import Program  # never executed: no edge
    """,
}


def test_a_package_without_a_cycle_passes(tmp_path: Path) -> None:
    write(tmp_path, ACYCLIC)
    done = check(tmp_path, "pkg")
    assert done.returncode == 0, done.stdout
    assert "no import cycle in pkg" in done.stdout


def test_an_import_inside_a_function_is_still_a_cycle(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            **ACYCLIC,
            "pkg/trainer.py": """\
                class Trainer:
                    def _self(self):
                        from pkg.program import Program

                        return Program
            """,
        },
    )
    done = check(tmp_path, "pkg")
    assert done.returncode == 1
    assert "import cycle 1: pkg.program, pkg.trainer" in done.stdout
    assert "pkg/trainer.py:3: pkg.trainer -> pkg.program" in done.stdout
    assert "pkg/program.py:1: pkg.program -> pkg.trainer" in done.stdout


def test_importing_a_package_imports_its_init(tmp_path: Path) -> None:
    # optimizer -> pkg (its __init__) -> program -> optimizer, through re-exports.
    write(
        tmp_path,
        {
            **ACYCLIC,
            "pkg/optimizer.py": "from pkg import Program\n",
            "pkg/program.py": """\
                from pkg.trainer import Trainer
                from . import optimizer
            """,
        },
    )
    done = check(tmp_path, "pkg")
    assert done.returncode == 1
    assert "pkg, pkg.optimizer, pkg.program" in done.stdout
    assert "pkg/optimizer.py:1: pkg.optimizer -> pkg" in done.stdout
    assert "pkg/program.py:2: pkg.program -> pkg.optimizer" in done.stdout


def test_the_else_branch_of_type_checking_runs(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            **ACYCLIC,
            "pkg/trainer.py": """\
                import typing

                if typing.TYPE_CHECKING:
                    pass
                else:
                    from pkg.program import Program
            """,
        },
    )
    assert check(tmp_path, "pkg").returncode == 1


def test_apps_that_import_each_other_are_a_cycle_even_between_distinct_modules(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "site/__init__.py": "",
            "site/runs/__init__.py": "",
            "site/runs/events.py": "from site.realtime.groups import run_group\n",
            "site/realtime/__init__.py": "",
            "site/realtime/groups.py": "def run_group(run_id):\n    return run_id\n",
            "site/realtime/consumers.py": "def owner():\n    from site.runs import events\n",
        },
    )
    assert check(tmp_path, "site").returncode == 0
    done = check(tmp_path, "site", "--apps", "site")
    assert done.returncode == 1
    assert "import cycle 1: site.realtime, site.runs" in done.stdout
    assert "site/runs/events.py:1: site.runs.events -> site.realtime.groups" in done.stdout
