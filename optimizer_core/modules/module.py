"""Module: the base of every node of a program, and the symbolic values that wire them.

Calling a module on a `SymbolicDataModel` (what `Input` returns) records a node
of the graph and returns a new symbolic value; calling it on real data runs it.
That is the functional API: ``outputs = await Generator(...)(inputs)``.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.saving.naming import snake_case
from optimizer_core.variables import OVERRIDES, Variable

__all__ = ["OVERRIDES", "TRACE", "Module", "Node", "SymbolicDataModel", "variable_value"]

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

_NAME_COUNTERS: defaultdict[str, itertools.count[int]] = defaultdict(itertools.count)

# A per-sample trace of what each module saw and produced during training.
# The trainer sets it (each sample runs in its own task, so traces never mix);
# Generators append to it; optimizers read it through the scored predictions.
TRACE: ContextVar[list[JsonDict] | None] = ContextVar("optimizer_core_trace", default=None)


def variable_value(variable: Variable) -> Mapping[str, Any]:
    """The value a module should use now (see `Variable.peek`)."""
    return variable.peek()


def unique_name(base: str) -> str:
    """``generator``, then ``generator_1``, ``generator_2``... within a process."""
    n = next(_NAME_COUNTERS[base])
    return base if n == 0 else f"{base}_{n}"


class Node:
    """One call of a module in a program's graph."""

    def __init__(self, module: Module, inbound: Sequence[SymbolicDataModel]) -> None:
        self.module = module
        self.inbound = list(inbound)


class SymbolicDataModel:
    """A placeholder for data in a program under construction: a schema and its producer."""

    def __init__(self, data_model: type[DataModel], *, node: Node) -> None:
        self.data_model = data_model
        self.node = node

    def get_schema(self) -> JsonDict:
        return self.data_model.get_schema()

    def __repr__(self) -> str:
        return f"<SymbolicDataModel {self.data_model.__name__} from {self.node.module.name}>"


class Module:
    """Base class of the nodes of a program.

    Subclasses implement `call` (real data) and `compute_output_spec` (symbolic
    data), create their variables in `__init__`, and round-trip through
    `get_config` / `from_config`.

    Args:
        name: unique name in the program (default: snake_case class name, made unique).
        description: free text, shown in summaries and given to optimizers.
        trainable: whether optimizers may change this module's variables.
    """

    def __init__(
        self, *, name: str | None = None, description: str | None = None, trainable: bool = True
    ) -> None:
        self.name = name or unique_name(snake_case(type(self).__name__))
        self.description = description
        self.trainable = trainable
        self._variables: list[Variable] = []

    @property
    def variables(self) -> list[Variable]:
        return list(self._variables)

    @property
    def trainable_variables(self) -> list[Variable]:
        if not self.trainable:
            return []
        return [v for v in self._variables if v.trainable]

    def add_variable(self, variable: Variable) -> Variable:
        self._variables.append(variable)
        return variable

    async def __call__(self, inputs: Any, *, training: bool = False) -> Any:
        symbols = inputs if isinstance(inputs, list | tuple) else [inputs]
        if any(isinstance(s, SymbolicDataModel) for s in symbols):
            if not all(isinstance(s, SymbolicDataModel) for s in symbols):
                raise TypeError(
                    f"module {self.name!r}: cannot mix symbolic and real inputs in one call"
                )
            return self.symbolic_call(list(symbols))
        if inputs is None:
            return None
        return await self.call(inputs, training=training)

    def symbolic_call(self, inputs: list[SymbolicDataModel]) -> SymbolicDataModel:
        output_model = self.compute_output_spec(inputs)
        return SymbolicDataModel(output_model, node=Node(self, inputs))

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        raise NotImplementedError(f"{type(self).__name__} cannot be called symbolically")

    async def call(self, inputs: Any, *, training: bool = False) -> Any:
        raise NotImplementedError

    def get_config(self) -> JsonDict:
        return {"name": self.name, "description": self.description, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config: JsonDict) -> Module:
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
