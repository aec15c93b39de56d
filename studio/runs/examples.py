"""A run's stored test rows: each example after training, with its rewards before and after.

What the run page and the compare page read a page at a time (``GET /api/runs/{id}/examples/``);
the runs list, the run detail and the comparison carry none of them.
"""

from __future__ import annotations

from typing import Any

from studio.runs.models import Run


def _at(rewards: Any, row: int) -> float | None:
    return rewards[row] if isinstance(rewards, list) and row < len(rewards) else None


def stored_rows(run: Run) -> list[dict[str, Any]]:
    """The test rows stored after training, in order (`training.MAX_STORED_EXAMPLES` at most)."""
    return list((run.after or {}).get("examples", []))


def examples(run: Run) -> list[dict[str, Any]]:
    """The rows stored after training, each with its rewards before and after training.

    Examples and per-row rewards are all in row order: row ``i``'s are
    ``before_rewards[i]`` and ``after_rewards[i]`` (the means over repeated
    evaluations; None when the run stored none). ``reward`` stays the reward of
    the ``output`` shown, from the last evaluation.
    """
    return [
        {
            **example,
            "before_reward": _at(run.before_rewards, row),
            "after_reward": _at(run.after_rewards, row),
        }
        for row, example in enumerate(stored_rows(run))
    ]
