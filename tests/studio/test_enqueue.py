"""`studio.celery.enqueue`: services queue a task by name, as the task's own `delay` would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from studio.celery import app, enqueue

ROOT = Path(__file__).resolve().parents[2]

# A fresh process, like the web process: no app's tasks module imported yet.
FRESH_PROCESS = """
import sys
import django

django.setup()
from celery.app.task import Task

from studio.celery import app, enqueue

assert "studio.runs.tasks" not in sys.modules
sent = []
Task.delay = lambda task, *args: sent.append((task.name, args))
enqueue("runs.run_training", 7)
enqueue("datasets.validate_dataset", 8)
assert sent == [("runs.run_training", (7,)), ("datasets.validate_dataset", (8,))], sent
print("ok")
"""


def test_a_process_that_never_imported_the_tasks_finds_them_by_name() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "studio.settings.test"}
    done = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_a_registered_task_goes_through_its_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    from studio.runs import tasks

    sent: list[int] = []
    monkeypatch.setattr(tasks.run_training, "delay", sent.append)
    enqueue("runs.run_training", 3)
    assert sent == [3]
    assert app.tasks["runs.run_training"] is tasks.run_training._get_current_object()


def test_an_unknown_task_name_is_an_error() -> None:
    with pytest.raises(KeyError):
        enqueue("runs.no_such_task", 1)
