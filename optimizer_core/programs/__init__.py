"""Programs: graphs of modules, and their training loop."""

from optimizer_core.programs.program import Program
from optimizer_core.programs.trainer import Trainer

__all__ = ["Program", "Trainer"]
