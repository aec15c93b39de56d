"""How the optimizer got there: a run's candidates per variable, rebuilt from its events.

The optimizer's events (``optimizer`` `RunEvent` rows: seeds, scored proposals
with their parents and rows, training batches, competitions) are folded by the
engine's `optimizer_core.optimizers.lineage.Lineage` into one DAG per trainable
variable. Two things come from elsewhere: a fork's starting populations (its
``initial_document``), and the candidate training ended with (the trained
document, else the last checkpoint's: `fit` restores its best epoch's candidate,
which no event names). The rows a candidate won or lost against a parent are
shown with a preview of their input and expected output (the dataset's training
split, in the order `fit` saw it).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from optimizer_core.optimizers.lineage import Lineage, LineageNode
from studio.runs import resources
from studio.runs.models import Run

logger = logging.getLogger(__name__)

MAX_PREVIEWED_ROWS = 500
"""Rows shown with their text at most; beyond, a row is named by its index only."""
PREVIEW_CHARS = 300
"""A previewed row's input or expected output, as compact JSON, cut to this length."""


def run_lineage(run: Run) -> dict[str, Any]:
    """The run's lineage: ``{run, optimizer, variables: [{name, best, nodes, edges}], rows}``."""
    lineage = Lineage()
    for name, state in _document_variables(run.initial_document).items():
        lineage.seed(name, state.get("best_candidates") or [])
    payloads = run.events.filter(kind="optimizer").order_by("seq").values_list("payload", flat=True)
    for payload in payloads.iterator():
        if isinstance(payload, dict) and isinstance(payload.get("event"), str):
            lineage.add(payload["event"], payload)
    final = _document_variables(run.trained_document or _last_checkpoint_document(run))
    variables = []
    named_rows: set[int] = set()
    for name in lineage.variables:
        best = final.get(name, {}).get("current_candidate")
        nodes = [_node(lineage, node, best) for node in lineage.nodes(name)]
        for node in nodes:
            for comparison in node["comparisons"]:
                named_rows.update(o["row"] for o in comparison["won"] + comparison["lost"])
        variables.append(
            {
                "name": name,
                "best": best if isinstance(best, str) else None,
                "nodes": nodes,
                "edges": [
                    {
                        "id": f"{parent}->{node['id']}",
                        "source": parent,
                        "target": node["id"],
                        "crossover": len(node["parents"]) > 1,
                    }
                    for node in nodes
                    for parent in node["parents"]
                ],
            }
        )
    return {
        "run": run.pk,
        "optimizer": _optimizer_name(run.compile_config),
        "variables": variables,
        "rows": _row_previews(run, sorted(named_rows)[:MAX_PREVIEWED_ROWS]),
    }


def _node(lineage: Lineage, node: LineageNode, best: Any) -> dict[str, Any]:
    return {
        "id": node.id,
        "parents": node.parents,
        "operation": node.operation,
        "epoch": node.epoch,
        "step": node.step,
        "reward": node.reward,
        "nb_evaluations": node.nb_evaluations,
        "score": node.score,
        "value": node.value,
        "in_population": node.in_population,
        "best": node.id == best,
        "dropped_at": node.dropped_at,
        "merged_into": node.merged_into,
        "rows_scored": len(node.rows),
        "comparisons": [
            {
                "parent": c.parent,
                "shared": c.shared,
                "tied": c.tied,
                "won": [dataclasses.asdict(o) for o in c.won],
                "lost": [dataclasses.asdict(o) for o in c.lost],
            }
            for c in lineage.comparisons(node.variable, node.id)
        ],
    }


def _document_variables(document: Any) -> dict[str, dict[str, Any]]:
    variables = document.get("variables") if isinstance(document, dict) else None
    if not isinstance(variables, dict):
        return {}
    return {str(k): v for k, v in variables.items() if isinstance(v, dict)}


def _last_checkpoint_document(run: Run) -> Any:
    checkpoint = run.checkpoints.order_by("-epoch").only("document").first()
    return checkpoint.document if checkpoint is not None else None


def _optimizer_name(compile_config: Any) -> str | None:
    optimizer = compile_config.get("optimizer") if isinstance(compile_config, dict) else None
    if isinstance(optimizer, dict):
        optimizer = optimizer.get("name")
    return optimizer if isinstance(optimizer, str) and optimizer else None


def _row_previews(run: Run, rows: list[int]) -> list[dict[str, Any]]:
    """Each named training row's input and expected output, as short JSON text."""
    if not rows:
        return []
    try:
        inputs, targets = resources.load_examples(run.dataset, split="train")
    except Exception:
        # A dataset file gone or unreadable costs the previews, not the lineage.
        logger.warning("run %s: no row previews for its lineage", run.pk, exc_info=True)
        return []
    return [
        {"index": row, "input": _preview(inputs[row]), "expected": _preview(targets[row])}
        for row in rows
        if 0 <= row < len(inputs)
    ]


def _preview(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"
