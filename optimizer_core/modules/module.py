"""Module: the base of every node of a program, and the symbolic values that wire them.

Calling a module on a `SymbolicDataModel` (what `Input` returns) records a node
of the graph and returns a new symbolic value (a tuple of them for a module with
several outputs, a `Branch`); calling it on real data runs it. That is the
functional API: ``outputs = await Generator(...)(inputs)``.

A module may hold other modules (a Branch its decision and its branches, a
SelfCritique its critic): they are its `submodules`, their variables are its
variables, and each of their calls is a step of the trace of its own.

The trace
---------
When `TRACE` holds a list (the trainer sets one per sample, `Program.trace` one
per call), every module call appends a step to it when it starts::

    {"module": name, "parent": enclosing module's name or None, "inputs": JSON,
     "outputs": JSON or None, "error": str or None, "skipped": bool, "taken": labels or None}

so the list is in call order, an enclosing module before the modules it calls.
A module whose input is None (a branch not taken, an upstream failure) does not
run: its step says ``skipped``. A module reports a failure on its own step with
`note_step` (a Generator's failed model call), and a Branch the labels it took.
Optimizers read these steps through the scored predictions: each module's own
inputs and outputs, and the reward of the row they belong to.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar

from optimizer_core.datamodels import DataModel, JsonDict, to_json
from optimizer_core.saving.naming import snake_case
from optimizer_core.variables import OVERRIDES, Variable

__all__ = [
    "OVERRIDES",
    "TRACE",
    "Module",
    "Node",
    "SymbolicDataModel",
    "as_json",
    "iter_modules",
    "note_step",
    "register_operator",
    "variable_value",
]

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

_NAME_COUNTERS: defaultdict[str, itertools.count[int]] = defaultdict(itertools.count)

# A per-sample trace of what each module saw and produced (see the module docstring).
# The trainer sets it (each sample runs in its own task, so traces never mix).
TRACE: ContextVar[list[JsonDict] | None] = ContextVar("optimizer_core_trace", default=None)
# The step of the module running now in this task, so that it can annotate it and the
# modules it calls can name it as their parent.
_STEP: ContextVar[JsonDict | None] = ContextVar("optimizer_core_step", default=None)

# The symbolic operators ``+ & | ^ ~``, filled by the merging modules (modules/merging.py)
# when they are imported: the module that defines them depends on this one, not the reverse.
_OPERATORS: dict[str, Callable[[list[SymbolicDataModel]], SymbolicDataModel]] = {}


def register_operator(
    symbol: str, build: Callable[[list[SymbolicDataModel]], SymbolicDataModel]
) -> None:
    """Make ``a <symbol> b`` on symbolic data models call `build([a, b])` (``~a``: `[a]`)."""
    _OPERATORS[symbol] = build


def variable_value(variable: Variable) -> Mapping[str, Any]:
    """The value a module should use now (see `Variable.peek`)."""
    return variable.peek()


def unique_name(base: str) -> str:
    """``generator``, then ``generator_1``, ``generator_2``... within a process."""
    n = next(_NAME_COUNTERS[base])
    return base if n == 0 else f"{base}_{n}"


def as_json(value: Any) -> Any:
    """A module's input or output as JSON: a dict, None, or a list of them for several."""
    if isinstance(value, list | tuple):
        return [as_json(item) for item in value]
    return to_json(value)


def note_step(**fields: Any) -> None:
    """Add fields to the trace step of the module running now (nothing when not tracing).

    A Generator notes ``error`` (and the ``exception``, which the trainer reads and no
    report shows) when its model call fails; a Branch notes ``taken``; a module that
    rewrites its input before using it notes the ``inputs`` it really used.
    """
    step = _STEP.get()
    if step is not None:
        step.update(fields)


class Node:
    """One call of a module in a program's graph: its inputs and its outputs."""

    def __init__(self, module: Module, inbound: Sequence[SymbolicDataModel]) -> None:
        self.module = module
        self.inbound = list(inbound)
        self.outputs: list[SymbolicDataModel] = []


class SymbolicDataModel:
    """A placeholder for data in a program under construction: a schema and its producer.

    ``index`` is which output of its node it is (0 but for a module with several
    outputs, such as a Branch's slot per label). The operators build merge modules:
    ``a + b`` a `Concat`, ``a & b`` an `And`, ``a | b`` an `Or`, ``a ^ b`` a `Xor`,
    ``~a`` a `Not`.
    """

    def __init__(self, data_model: type[DataModel], *, node: Node, index: int = 0) -> None:
        self.data_model = data_model
        self.node = node
        self.index = index

    def get_schema(self) -> JsonDict:
        return self.data_model.get_schema()

    def _combine(self, symbol: str, other: Any, *, reverse: bool = False) -> SymbolicDataModel:
        if not isinstance(other, SymbolicDataModel):
            raise TypeError(
                f"`{symbol}` combines two symbolic data models (module outputs or inputs) "
                f"while a program is built, got {type(other).__name__}"
            )
        return _OPERATORS[symbol]([other, self] if reverse else [self, other])

    def __add__(self, other: Any) -> SymbolicDataModel:
        return self._combine("+", other)

    def __radd__(self, other: Any) -> SymbolicDataModel:
        return self._combine("+", other, reverse=True)

    def __and__(self, other: Any) -> SymbolicDataModel:
        return self._combine("&", other)

    def __rand__(self, other: Any) -> SymbolicDataModel:
        return self._combine("&", other, reverse=True)

    def __or__(self, other: Any) -> SymbolicDataModel:
        return self._combine("|", other)

    def __ror__(self, other: Any) -> SymbolicDataModel:
        return self._combine("|", other, reverse=True)

    def __xor__(self, other: Any) -> SymbolicDataModel:
        return self._combine("^", other)

    def __rxor__(self, other: Any) -> SymbolicDataModel:
        return self._combine("^", other, reverse=True)

    def __invert__(self) -> SymbolicDataModel:
        return _OPERATORS["~"]([self])

    def __repr__(self) -> str:
        slot = f"[{self.index}]" if len(self.node.outputs) > 1 else ""
        return f"<SymbolicDataModel {self.data_model.__name__} from {self.node.module.name}{slot}>"


def iter_modules(modules: Sequence[Module]) -> Iterator[Module]:
    """The modules and, depth first, the modules they hold (each object once)."""
    seen: set[int] = set()
    stack = list(reversed(modules))
    while stack:
        module = stack.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        yield module
        stack.extend(reversed(module.submodules))


class Module:
    """Base class of the nodes of a program.

    Subclasses implement `call` (real data) and `compute_output_spec` (symbolic
    data), create their variables in `__init__` (and their inner modules, with
    `add_module`), and round-trip through `get_config` / `from_config`.

    Args:
        name: unique name in the program (default: snake_case class name, made unique).
        description: free text, shown in summaries and given to optimizers.
        trainable: whether optimizers may change this module's variables (and those
            of the modules it holds).
    """

    #: Whether a None among the inputs makes the output None without running `call`
    #: (most modules; the merges that handle None themselves, `Or` and `Xor`, say False).
    propagates_none: ClassVar[bool] = True

    def __init__(
        self, *, name: str | None = None, description: str | None = None, trainable: bool = True
    ) -> None:
        self.name = name or unique_name(snake_case(type(self).__name__))
        self.description = description
        self.trainable = trainable
        self._variables: list[Variable] = []
        self._modules: list[Module] = []

    @property
    def submodules(self) -> list[Module]:
        """The modules this one holds and calls (a Branch's decision and branches)."""
        return list(self._modules)

    def add_module(self, module: Module) -> Module:
        self._modules.append(module)
        return module

    @property
    def own_variables(self) -> list[Variable]:
        """The variables it created itself (not those of the modules it holds)."""
        return list(self._variables)

    @property
    def variables(self) -> list[Variable]:
        """Its own variables, then those of the modules it holds."""
        found = list(self._variables)
        for module in self._modules:
            found.extend(module.variables)
        return found

    @property
    def trainable_variables(self) -> list[Variable]:
        if not self.trainable:
            return []
        found = [v for v in self._variables if v.trainable]
        for module in self._modules:
            found.extend(module.trainable_variables)
        return found

    def add_variable(self, variable: Variable) -> Variable:
        self._variables.append(variable)
        return variable

    async def __call__(self, inputs: Any, *, training: bool = False) -> Any:
        values = list(inputs) if isinstance(inputs, list | tuple) else [inputs]
        if any(isinstance(value, SymbolicDataModel) for value in values):
            if not all(isinstance(value, SymbolicDataModel) for value in values):
                raise TypeError(
                    f"module {self.name!r}: cannot mix symbolic and real inputs in one call"
                )
            return self.symbolic_call(values)
        trace = TRACE.get()
        skipped = self.propagates_none and any(value is None for value in values)
        if trace is None:
            return self.none_output() if skipped else await self.call(inputs, training=training)
        parent = _STEP.get()
        step: JsonDict = {
            "module": self.name,
            "parent": parent["module"] if parent is not None else None,
            "inputs": as_json(inputs),
            "outputs": None,
            "error": None,
            "skipped": skipped,
            "taken": None,
        }
        trace.append(step)
        if skipped:
            return self.none_output()
        token = _STEP.set(step)
        try:
            output = await self.call(inputs, training=training)
        finally:
            _STEP.reset(token)
        step["outputs"] = as_json(output)
        return output

    def none_output(self) -> Any:
        """What the module gives when an input is None: None (a tuple of them for several)."""
        return None

    def symbolic_call(
        self, inputs: list[SymbolicDataModel]
    ) -> SymbolicDataModel | tuple[SymbolicDataModel, ...]:
        spec = self.compute_output_spec(inputs)
        node = Node(self, inputs)
        if isinstance(spec, tuple | list):
            node.outputs = [
                SymbolicDataModel(model, node=node, index=i) for i, model in enumerate(spec)
            ]
            return tuple(node.outputs)
        node.outputs = [SymbolicDataModel(spec, node=node)]
        return node.outputs[0]

    def compute_output_spec(
        self, inputs: list[SymbolicDataModel]
    ) -> type[DataModel] | tuple[type[DataModel], ...]:
        """The output DataModel for these symbolic inputs (a tuple of them for several)."""
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
