"""What running a program reports: an evaluation row by row, and a trace module by module.

`Program.evaluate(..., return_examples=True)` returns an `Evaluation`: the usual
logs plus one `EvaluatedExample` per row, in row order, so two evaluations of the
same rows can be compared pair by pair (`optimizer_core.stats.compare_paired`).
`Program.trace(inputs)` returns a `Trace`: the program's output and one
`TraceStep` per module run, in the order they ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from optimizer_core.datamodels import JsonDict

__all__ = ["EvaluatedExample", "Evaluation", "Trace", "TraceStep"]


@dataclass(frozen=True)
class EvaluatedExample:
    """One evaluated row.

    Attributes:
        input: the row's input as JSON (a list of objects for a program with several inputs).
        expected: the row's target as JSON (a list for a program with several outputs).
        output: the program's output as JSON (a list for several outputs); None when
            the row failed.
        reward: the row's reward; a failed row scores 0.0.
        error: why the row failed (the first failing module's error); None when it did not.
        feedback: what the reward said of the row beside its score (`ExactMatch`'s
            differing fields, `LMAsJudge`'s critique, a function's text); None when
            it said nothing.
        trace: what each module saw and gave on this row, the branches taken
            (`TraceStep`s, in the order the calls started).
    """

    input: Any
    expected: Any
    output: Any
    reward: float
    error: str | None = None
    trace: list[TraceStep] = field(default_factory=list)
    feedback: str | None = None

    def as_json(self) -> JsonDict:
        return {
            "input": self.input,
            "expected": self.expected,
            "output": self.output,
            "reward": self.reward,
            "feedback": self.feedback,
            "error": self.error,
            "trace": [step.as_json() for step in self.trace],
        }


@dataclass(frozen=True)
class Evaluation:
    """`Program.evaluate`'s figures and each row's result.

    Attributes:
        logs: what `evaluate` returns by default: ``{"reward": mean, <metric>: value,
            ...}``, with ``"failures"`` when any row failed.
        examples: one `EvaluatedExample` per row, in the order of the rows.

    Example:
        ```python
        before = await program.evaluate(x, y, return_examples=True)
        # ... train ...
        after = await program.evaluate(x, y, return_examples=True)
        print(stats.compare_paired(before.rewards, after.rewards).describe())
        ```
    """

    logs: dict[str, float]
    examples: list[EvaluatedExample] = field(default_factory=list)

    @property
    def rewards(self) -> list[float]:
        """Each row's reward, in row order (0.0 for a failed row)."""
        return [example.reward for example in self.examples]

    @property
    def failures(self) -> int:
        """How many rows failed."""
        return sum(_nothing(example.output) for example in self.examples)


@dataclass(frozen=True)
class TraceStep:
    """What one module call saw and produced.

    Attributes:
        module: the module's name.
        inputs: its input as JSON: what a Generator showed its model (several
            inputs merged, a Decision's question added), else a list for a module
            with several inputs.
        outputs: its output as JSON (a list for a module with several outputs, a
            Branch's slot per label, None in the slots not taken); None when it
            failed or did not run.
        error: why it failed (a Generator's model or parsing error); None when it did not.
        parent: the module whose call made this one (a Branch for its decision and
            branches, a SelfCritique for its critic); None for a module of the graph.
        skipped: it did not run because an input was None (a branch not taken, or
            a module after one that failed).
        taken: a Branch's labels whose branch ran; None for other modules.
    """

    module: str
    inputs: Any
    outputs: Any
    error: str | None = None
    parent: str | None = None
    skipped: bool = False
    taken: list[str] | None = None

    @classmethod
    def from_record(cls, record: JsonDict) -> TraceStep:
        """A step from the record a module call left in the trace (`modules.module`)."""
        taken = record.get("taken")
        return cls(
            module=record["module"],
            inputs=record.get("inputs"),
            outputs=record.get("outputs"),
            error=record.get("error"),
            parent=record.get("parent"),
            skipped=bool(record.get("skipped")),
            taken=list(taken) if taken is not None else None,
        )

    def as_json(self) -> JsonDict:
        return {
            "module": self.module,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "error": self.error,
            "parent": self.parent,
            "skipped": self.skipped,
            "taken": self.taken,
        }


@dataclass(frozen=True)
class Trace:
    """`Program.trace`'s report of one run.

    Attributes:
        output: what calling the program returned (a DataModel, a list of them for
            several outputs, None where it failed).
        steps: one `TraceStep` per module call, in the order the calls started (a
            module before the modules it holds); a module that did not run because
            an input was None has a ``skipped`` step.
    """

    output: Any
    steps: list[TraceStep] = field(default_factory=list)


def _nothing(output: Any) -> bool:
    if isinstance(output, list):
        return all(item is None for item in output)
    return output is None
