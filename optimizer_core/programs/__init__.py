"""Programs: graphs of modules, and their training loop."""

from optimizer_core.programs.failures import FailureRule
from optimizer_core.programs.program import Program
from optimizer_core.programs.results import EvaluatedExample, Evaluation, Trace, TraceStep
from optimizer_core.programs.trainer import Trainer

__all__ = [
    "EvaluatedExample",
    "Evaluation",
    "FailureRule",
    "Program",
    "Trace",
    "TraceStep",
    "Trainer",
]
