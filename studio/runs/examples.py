"""A run's stored test rows: each example after training, with its rewards and the reward's
feedback before and after.

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


def _feedback(rows: list[Any], row: int) -> str | None:
    """Row ``row``'s feedback in stored rows (None: none, or stored before feedback was)."""
    if row >= len(rows) or not isinstance(rows[row], dict):
        return None
    text = rows[row].get("feedback")
    return text if isinstance(text, str) else None


def examples(run: Run) -> list[dict[str, Any]]:
    """The rows stored after training, each with its rewards and feedback before and after.

    Examples and per-row rewards are all in row order: row ``i``'s are
    ``before_rewards[i]`` and ``after_rewards[i]`` (the means over repeated
    evaluations; None when the run stored none). ``reward`` stays the reward of
    the ``output`` shown, from the last evaluation, and ``feedback`` what the
    reward said of it; ``before_feedback`` what it said of the row's output
    before training (the last evaluation before). Either is None when the reward
    said nothing, or for a run stored before rewards gave feedback.
    """
    before = list((run.before or {}).get("examples", []))
    return [
        {
            **example,
            "feedback": _feedback([example], 0),
            "before_feedback": _feedback(before, row),
            "before_reward": _at(run.before_rewards, row),
            "after_reward": _at(run.after_rewards, row),
        }
        for row, example in enumerate(stored_rows(run))
    ]
