"""Side-by-side comparison of runs: curves, before/after, verdicts, variable diff.

Each run's gain is its after against its own before, row by row; each run after
the first is also compared with the first, row by row when both evaluated the
same test rows (`studio.runs.significance`). The verdicts come from the stored
per-row rewards; the rows themselves (`examples`) are not in the comparison (up to
1,000 a run, 8 runs: megabytes) but come a page at a time from each run's examples
endpoint, and the compare page pairs them by input in the browser.
"""

from __future__ import annotations

from typing import Any

from studio.programs.documents import load_program
from studio.runs.examples import stored_rows
from studio.runs.history import epoch_logs
from studio.runs.models import Run, RunEvent
from studio.runs.significance import run_gain, versus


def epoch_curves(run: Run) -> dict[str, list[Any]]:
    """``{"epoch": [0, 1, ...], "reward": [...], "val_reward": [...], ...}`` from epoch events.

    An epoch trained twice (a resumed run redoes an unfinished one) counts once: the last.
    """
    by_epoch = dict(epoch_logs(run))
    epochs = sorted(by_epoch)
    keys = sorted({key for logs in by_epoch.values() for key in logs})
    curves: dict[str, list[Any]] = {"epoch": epochs}
    for key in keys:
        curves[key] = [by_epoch[e].get(key) for e in epochs]
    return curves


def trained_variables(run: Run) -> dict[str, dict[str, Any]]:
    """Each trainable variable's trainable fields at the end of the run (or its last epoch)."""
    if run.trained_document:
        program = load_program({**run.trained_document, "compile_config": None})
        return {v.name: v.get_trainable_json() for v in program.trainable_variables}
    last = RunEvent.objects.filter(run=run, kind="variables").order_by("-seq").first()
    return dict(last.payload.get("variables") or {}) if last is not None else {}


def _phase(run: Run, field: str) -> dict[str, Any] | None:
    value = getattr(run, field)
    return value.get("summary") if isinstance(value, dict) else None


def compare_runs(runs: list[Run]) -> dict[str, Any]:
    """The comparison the compare view returns.

    Returns:
        ``{"runs": [{id, name, state, dataset, dataset_version, curves, before, after,
        example_count, gain, versus}], "variables": {name: {"values": {run_id: value},
        "changed_fields": [...]}}}``;
        ``example_count``: the test rows stored after training (the rows themselves: the
        run's examples endpoint, a page at a time); ``gain``: the run against its own
        before; ``versus``: against the first run (None for the first);
        ``changed_fields`` lists the trainable fields whose values differ between runs.
    """
    entries = []
    values: dict[str, dict[str, Any]] = {}
    for index, run in enumerate(runs):
        entries.append(
            {
                "id": run.pk,
                "name": run.name,
                "state": run.state,
                "dataset": run.dataset_id,
                "dataset_version": run.dataset_version.number if run.dataset_version else None,
                "curves": epoch_curves(run),
                "before": _phase(run, "before"),
                "after": _phase(run, "after"),
                "example_count": len(stored_rows(run)),
                "gain": run_gain(run),
                "versus": versus(runs[0], run) if index > 0 else None,
            }
        )
        for name, value in trained_variables(run).items():
            values.setdefault(name, {})[str(run.pk)] = value
    variables = {}
    for name, per_run in values.items():
        fields = sorted({field for value in per_run.values() for field in value})
        changed = [
            field
            for field in fields
            if len({repr(v.get(field)) for v in per_run.values()}) > 1 or len(per_run) < len(runs)
        ]
        variables[name] = {"values": per_run, "changed_fields": changed}
    return {"runs": entries, "variables": variables}
