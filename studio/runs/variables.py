"""A run's trainable variables before and after training, module by module.

"Before" is the document the run started from: a fork's ``initial_document``, else its
program version's. "After" is the trained document, written when training ends (None
until then). Both are loaded by the engine and read with ``get_trainable_json()``, so the
run page diffs exactly the fields an optimizer may change (instructions, examples), not
the optimizer's bookkeeping (candidates, predictions) a document also stores.
"""

from __future__ import annotations

from typing import Any

from studio.programs.documents import load_program
from studio.runs.models import Run


def _trainable(document: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    if not document:
        return {}
    program = load_program({**document, "compile_config": None})
    return {v.name: v.get_trainable_json() for v in program.trainable_variables}


def run_variables(run: Run) -> dict[str, dict[str, Any]]:
    """``{name: {"before": {...} | None, "after": {...} | None}}``, one per trainable
    variable (one per Generator, Decision or branch module), in the program's order."""
    before = _trainable(run.initial_document or run.program_version.document)
    after = _trainable(run.trained_document)
    names = [*before, *(name for name in after if name not in before)]
    return {name: {"before": before.get(name), "after": after.get(name)} for name in names}
