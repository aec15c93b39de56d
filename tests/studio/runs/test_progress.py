"""Feedback while a run trains: evaluation progress by rows, and LM usage with every batch."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync

from studio.runs import services
from studio.runs.callbacks import EvaluationProgress
from studio.runs.models import Run, RunEvent
from studio.runs.training import execute_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version


class Recorder:
    """Stands in for `RunEventLogger`: keeps what would be emitted."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def emit(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.sent.append((kind, payload))
        return {}

    def usage(self) -> dict[str, Any]:
        return {"calls": len(self.sent)}


def test_evaluation_progress_is_throttled_but_always_says_the_start_and_the_end():
    now = [0.0]
    recorder = Recorder()
    progress = EvaluationProgress(
        recorder,  # type: ignore[arg-type]
        phase="before",
        index=1,
        evaluations=3,
        rows=10,
        batch_size=3,
        clock=lambda: now[0],
    )

    async def evaluate() -> None:
        await progress.on_test_begin()
        await progress.on_test_batch_end(0)  # 0.1 s after the start: dropped
        now[0] = 0.1
        await progress.on_test_batch_end(1)
        now[0] = 0.4
        await progress.on_test_batch_end(2)  # 0.4 s: sent
        now[0] = 0.45
        await progress.on_test_batch_end(3)  # the last rows: sent however soon

    async_to_sync(evaluate)()

    assert [kind for kind, _ in recorder.sent] == ["evaluation_progress"] * 3
    assert [p["rows_done"] for _, p in recorder.sent] == [0, 9, 10]
    first = recorder.sent[0][1]
    assert first == {
        "phase": "before",
        "index": 1,
        "evaluations": 3,
        "rows_done": 0,
        "rows": 10,
        "usage": {"calls": 0},
    }


@pytest.mark.django_db
@pytest.mark.litellm
def test_a_run_reports_evaluation_rows_and_usage_before_its_first_epoch_ends(user, scripted_server):
    run = services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, scripted_server.base_url),
        compile_config=COMPILE_CONFIG,
        # 8 test rows in batches of 4; 32 training rows: 8 batches in the one epoch.
        fit_config={
            "epochs": 1,
            "batch_size": 4,
            "evaluations": 2,
            "evaluation_temperature": 0.7,  # repeats sample only above 0
            "seed": 0,
        },
    )

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    events = list(RunEvent.objects.filter(run=run).order_by("seq"))
    kinds = [e.kind for e in events]

    for phase in ("before", "after"):
        for index in (0, 1):
            done = [
                e.payload["rows_done"]
                for e in events
                if e.kind == "evaluation_progress"
                and e.payload["phase"] == phase
                and e.payload["index"] == index
            ]
            assert done[0] == 0 and done[-1] == 8 and done == sorted(done), (phase, index, done)
    progress = next(e.payload for e in events if e.kind == "evaluation_progress")
    assert progress["rows"] == 8 and progress["evaluations"] == 2

    # The usage the evaluation before training spent, before training begins.
    summary = kinds.index("evaluation_summary")
    usage = kinds.index("usage", summary)
    assert usage < kinds.index("train_begin")
    assert events[usage].payload["calls"] >= 16  # 2 evaluations of 8 rows, one call each

    # Every batch carries the usage so far, growing, ahead of the epoch's usage event.
    batches = [e.payload for e in events if e.kind == "batch"]
    assert len(batches) == 8
    calls = [b["usage"]["calls"] for b in batches]
    assert calls == sorted(calls) and calls[0] > events[usage].payload["calls"]
    assert set(batches[0]["usage"]) == set(events[usage].payload)
    epoch_usage = kinds.index("usage", kinds.index("epoch"))
    assert events[epoch_usage].payload["calls"] >= calls[-1]
