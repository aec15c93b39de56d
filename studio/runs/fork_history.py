"""What a fork inherits: the epochs its ancestors trained before the fork point.

A fork at epoch E starts from its parent's checkpoint E, so the parent's epochs
0..E-1 are part of its history. A parent that is itself a fork trained only its
epochs after its own fork point; the earlier ones come from its parent, and so on
up the chain. Each epoch's logs are its checkpoint's (the `epoch` event's logs).
"""

from __future__ import annotations

from typing import Any

from studio.runs.models import Checkpoint, Run

MAX_ANCESTORS = 50
"""How far up a chain of forks to look (a guard; chains are short)."""


def inherited_epochs(run: Run) -> list[dict[str, Any]]:
    """The epochs ``run`` inherits, oldest first: ``[{epoch, run, logs}]``.

    ``epoch`` is 0-based (as in `epoch` events), ``run`` the ancestor that trained
    it. Empty for a run that is not a fork, or whose parent was deleted; an
    ancestor of another owner is never read.
    """
    epochs: dict[int, dict[str, Any]] = {}
    child, limit = run, run.fork_epoch or 0
    seen = {run.pk}
    while child.parent_id is not None and limit > 0 and len(seen) <= MAX_ANCESTORS:
        parent = Run.objects.filter(pk=child.parent_id, owner_id=run.owner_id).first()
        if parent is None or parent.pk in seen:
            break
        seen.add(parent.pk)
        checkpoints = Checkpoint.objects.filter(run=parent, epoch__lte=limit).order_by("epoch")
        for checkpoint in checkpoints.only("epoch", "logs"):
            # Checkpoint n is saved after epoch n - 1 (0-based); the nearest ancestor wins.
            epochs.setdefault(
                checkpoint.epoch - 1,
                {"epoch": checkpoint.epoch - 1, "run": parent.pk, "logs": checkpoint.logs},
            )
        child, limit = parent, min(limit, parent.fork_epoch or 0)
    return [epochs[epoch] for epoch in sorted(epochs)]
