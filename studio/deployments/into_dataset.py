"""Reviewed predictions into a dataset: a new dataset version whose added rows they are.

The owner picks logged predictions (by id, or every reviewed one the list's filters
select) and a dataset of theirs; each prediction becomes one row: ``input`` is what
the caller sent, ``output`` the reviewer's correction where there is one, else the
logged output where the verdict is "right". A prediction marked "wrong" without a
correction says what the answer is not, not what it is: it is skipped and counted,
and so are unreviewed ones, failures nobody corrected, and predictions already in the
dataset (an added row remembers its prediction in ``source_ref``, so adding the same
rows twice adds nothing the second time).

The version is made by `studio.datasets.versions.create_version`, the one writer of
versions (source ``predictions``), so the rows are checked against the dataset's models,
split as that function splits added rows (``train``, ``test``, or ``auto``: the
dataset's test fraction over the row's content hash), numbered and digested as any
edit is. Before any row is built the deployment's input and output schemas are
compared with the dataset's, field by field, so a dataset of another task is refused
naming the first field that differs rather than row by row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.common.exceptions import FieldError
from studio.datasets import versions
from studio.datasets.exceptions import DatasetError
from studio.datasets.models import Dataset, DatasetRowChange, DatasetVersion
from studio.deployments import prediction_log
from studio.deployments.exceptions import DeploymentError
from studio.deployments.models import Deployment, DeploymentTarget, PredictionLog

MAX_ROWS = versions.MAX_CHANGES
"""Predictions one request may add (a version's limit)."""
SPLITS = versions.ADD_SPLITS
JsonDict = dict[str, Any]


@dataclass
class Outcome:
    """The version made, and the predictions left out with why."""

    version: DatasetVersion
    added: int
    skipped: dict[str, int] = field(default_factory=dict)


def source_ref(row: PredictionLog) -> str:
    """How an added row names the prediction it came from (``DatasetRowChange.source_ref``)."""
    return f"prediction:{row.deployment_id}:{row.pk}"


def _fields(schema: Any) -> dict[str, Any]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


def _kind(spec: Any) -> Any:
    return spec.get("type") if isinstance(spec, dict) else None


def _differences(side: str, served: Any, stored: Any) -> list[str]:
    """How the dataset's ``side`` schema differs from the deployment's, field by field."""
    ours, theirs = _fields(served), _fields(stored)
    found = [
        f"the deployment's {side} has `{name}`, the dataset's has not"
        for name in ours
        if name not in theirs
    ]
    found += [
        f"the dataset's {side} has `{name}`, the deployment's has not"
        for name in theirs
        if name not in ours
    ]
    for name in ours:
        if name in theirs and _kind(ours[name]) != _kind(theirs[name]):
            found.append(
                f"`{side}.{name}` is {_kind(ours[name]) or 'untyped'} in the deployment, "
                f"{_kind(theirs[name]) or 'untyped'} in the dataset"
            )
    return found


def check_fits(target: DeploymentTarget, dataset: Dataset) -> None:
    """Refuse a dataset whose rows could not hold this target's inputs and outputs.

    Raises:
        DeploymentError: at ``dataset``, naming the first field that differs.
    """
    if not target.single_input or len(target.output_schemas) != 1:
        raise DeploymentError(
            "only a program with one input and one output makes dataset rows; this one has "
            f"{len(target.input_schemas)} inputs and {len(target.output_schemas)} outputs",
            path="dataset",
        )
    problems = _differences("input", target.input_schemas[0]["schema"], dataset.input_schema)
    problems += _differences("output", target.output_schemas[0]["schema"], dataset.output_schema)
    if problems:
        raise DeploymentError(
            f"dataset {dataset.name!r} does not match the deployment: {problems[0]}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
            path="dataset",
        )


def select(
    deployment: Deployment, *, ids: list[int] | None, filters: dict[str, str] | None
) -> tuple[list[PredictionLog], dict[int, str]]:
    """The predictions asked for, oldest first, and the request field that chose each.

    Raises:
        DeploymentError: an id that is not this deployment's (at ``ids[i]``), a filter
            that does not parse, or more than `MAX_ROWS` predictions.
    """
    if ids is not None:
        rows = PredictionLog.objects.filter(deployment=deployment, pk__in=ids)
        found = {row.pk: row for row in rows}
        paths: dict[int, str] = {}
        for index, pk in enumerate(ids):
            if pk not in found:
                raise DeploymentError(
                    f"deployment {deployment.name!r} has no logged prediction {pk}",
                    path=f"ids[{index}]",
                )
            paths.setdefault(pk, f"ids[{index}]")
        return sorted(found.values(), key=lambda r: (r.created_at, r.pk)), paths
    reviewed = prediction_log.filtered(deployment, filters or {}).exclude(
        verdict__isnull=True, correction__isnull=True
    )
    chosen = list(reviewed[: MAX_ROWS + 1])
    if len(chosen) > MAX_ROWS:
        raise DeploymentError(
            f"more than {MAX_ROWS:,} reviewed predictions match: narrow the filters "
            "(a time range) and add them in several versions",
            path="reviewed",
        )
    chosen.reverse()
    return chosen, {row.pk: "reviewed" for row in chosen}


def _row_output(row: PredictionLog) -> tuple[Any, str | None]:
    """The row's target output, or why it has none."""
    if row.correction is not None:
        return row.correction, None
    if row.verdict == PredictionLog.Verdict.RIGHT:
        return (row.outputs, None) if row.outputs is not None else (None, "failed")
    if row.verdict == PredictionLog.Verdict.WRONG:
        return None, "wrong_without_correction"
    return None, "unreviewed"


def _already_added(dataset: Dataset) -> set[str]:
    """The ``source_ref`` of every row still in the dataset's latest version."""
    line = versions.lineage(versions.latest_version(dataset))
    return {
        change.source_ref
        for change in line.state.values()
        if change.op != DatasetRowChange.Op.REMOVE and change.source_ref
    }


def add_predictions(
    deployment: Deployment,
    *,
    dataset: Dataset,
    ids: list[int] | None = None,
    filters: dict[str, str] | None = None,
    split: str = "auto",
    message: str = "",
) -> Outcome:
    """A new version of ``dataset`` with these predictions added as rows.

    Args:
        ids: the predictions, by id; else every reviewed one ``filters`` selects.
        split: ``train``, ``test`` or ``auto`` (the dataset's own split rule).

    Raises:
        DeploymentError: the dataset does not match, an id or filter is wrong, or no
            prediction makes a row (each at the request field that chose it).
        DatasetError: the dataset is not valid, or a row does not fit its models.
    """
    if split not in SPLITS:
        raise DeploymentError(f"one of {list(SPLITS)}, got {split!r}", path="split")
    assert deployment.target is not None
    check_fits(deployment.target, dataset)
    rows, paths = select(deployment, ids=ids, filters=filters)
    present = _already_added(dataset)
    skipped: dict[str, int] = {}
    kept: list[PredictionLog] = []
    add: list[JsonDict] = []
    for row in rows:
        output, reason = _row_output(row)
        if reason is None and source_ref(row) in present:
            reason = "already_in_dataset"
        if reason is not None:
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        kept.append(row)
        add.append(
            {"input": row.inputs, "output": output, "split": split, "source_ref": source_ref(row)}
        )
    if not add:
        reasons = ", ".join(f"{count} {why.replace('_', ' ')}" for why, count in skipped.items())
        raise DeploymentError(
            "none of these predictions makes a row"
            + (f" ({reasons})" if reasons else ": no reviewed prediction matches"),
            path="ids" if ids is not None else "reviewed",
        )
    try:
        version = versions.create_version(
            dataset,
            add=add,
            message=message or f"{len(add)} predictions of deployment {deployment.name}",
            source=DatasetVersion.Source.PREDICTIONS,
        )
    except DatasetError as error:
        raise DatasetError([_locate(problem, kept, paths) for problem in error.errors]) from None
    return Outcome(version=version, added=len(add), skipped=skipped)


def _locate(problem: FieldError, kept: list[PredictionLog], paths: dict[int, str]) -> FieldError:
    """A row's problem (``add[3].output.answer``) said of the prediction it came from."""
    if not problem.path.startswith("add["):
        return problem
    index, _, rest = problem.path[len("add[") :].partition("]")
    row = kept[int(index)]
    where = rest.lstrip(".") or "row"
    return FieldError(paths[row.pk], f"prediction {row.pk}: {where}: {problem.message}")
