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
        expected: the row's target as JSON.
        output: the program's output as JSON; None when the row failed.
        reward: the row's reward; a failed row scores 0.0.
        error: why the row failed (the first failing module's error); None when it did not.
    """

    input: Any
    expected: JsonDict | None
    output: JsonDict | None
    reward: float
    error: str | None = None

    def as_json(self) -> JsonDict:
        return {
            "input": self.input,
            "expected": self.expected,
            "output": self.output,
            "reward": self.reward,
            "error": self.error,
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
        return sum(example.output is None for example in self.examples)


@dataclass(frozen=True)
class TraceStep:
    """What one module saw and produced.

    Attributes:
        module: the module's name.
        inputs: its input as JSON (a list for a module with several inputs).
        outputs: its output as JSON; None when it failed.
        error: why it failed (a Generator's model or parsing error); None when it did not.
    """

    module: str
    inputs: Any
    outputs: Any
    error: str | None = None

    def as_json(self) -> JsonDict:
        return {
            "module": self.module,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "error": self.error,
        }


@dataclass(frozen=True)
class Trace:
    """`Program.trace`'s report of one run.

    Attributes:
        output: what calling the program returned (a DataModel, a list of them for
            several outputs, None where it failed).
        steps: one `TraceStep` per module that ran, in the order they ran. A
            module whose input failed upstream does not run and has no step.
    """

    output: Any
    steps: list[TraceStep] = field(default_factory=list)
