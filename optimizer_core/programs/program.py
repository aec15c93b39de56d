"""Program: a graph of modules built with the functional API, trainable as a whole."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from typing import Any, cast

from optimizer_core.datamodels import DataModel, JsonDict, to_json
from optimizer_core.exceptions import (
    DataError,
    GraphDisconnectedError,
    ProgramError,
    SerializationError,
)
from optimizer_core.modules.input import InputLayer
from optimizer_core.modules.module import (
    TRACE,
    Module,
    Node,
    SymbolicDataModel,
    iter_modules,
    unique_name,
)
from optimizer_core.programs.fit_state import FitState
from optimizer_core.programs.results import Trace, TraceStep
from optimizer_core.programs.trainer import Trainer
from optimizer_core.programs.variable_files import (
    FORMAT_VERSION,
    NO_SUCH_VARIABLE,
    check_document,
    json_path,
    load_variables,
    names_here,
    read_json,
    save_variables,
    set_state_tree,
    short_error,
    state_tree,
    variables_layout,
    write_json,
)
from optimizer_core.rewards.program_as_judge import JudgeProgram
from optimizer_core.saving.document_check import check_names
from optimizer_core.saving.object_registry import (
    RefusedObjectError,
    register_library_objects,
    safe_mode_scope,
)
from optimizer_core.saving.paths import locate, place_error
from optimizer_core.variables import Variable, snapshot


class Program(Trainer):
    """A directed acyclic graph of modules, from `Input`s to outputs.

    Args:
        inputs: the symbolic input (or a list of them) returned by `Input`.
        outputs: the symbolic output (or a list of them) of the last modules.
        name: a name (default ``program``, made unique).
        description: what the program does; optimizers that rewrite
            instructions (OMEGA) give it to their language model.

    Example:
        ```python
        inputs = Input(data_model=Query)
        outputs = await Generator(data_model=Answer, language_model=lm)(inputs)
        program = Program(inputs=inputs, outputs=outputs, description="Answer questions")
        answer = await program(Query(query="Capital of France?"))
        ```
    """

    def __init__(
        self,
        *,
        inputs: SymbolicDataModel | Sequence[SymbolicDataModel],
        outputs: SymbolicDataModel | Sequence[SymbolicDataModel],
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        super().__init__()
        self.name = name or unique_name("program")
        self.description = description
        self._single_input = isinstance(inputs, SymbolicDataModel)
        self._single_output = isinstance(outputs, SymbolicDataModel)
        self.inputs: list[SymbolicDataModel] = _as_symbol_list(inputs, "inputs")
        self.outputs: list[SymbolicDataModel] = _as_symbol_list(outputs, "outputs")
        self._order = self._topological_order()

    # Graph ----------------------------------------------------------------------------------

    def _topological_order(self) -> list[Node]:
        """The nodes from the inputs to the outputs, each after the nodes it reads."""
        input_ids = {id(s) for s in self.inputs}
        for symbol in self.inputs:
            if not isinstance(symbol.node.module, InputLayer):
                raise GraphDisconnectedError(
                    f"program {self.name!r}: `inputs` must come from Input(), "
                    f"got the output of {symbol.node.module.name!r}"
                )
        order: list[Node] = []
        seen: set[int] = set()

        def visit(symbol: SymbolicDataModel, path: list[str]) -> None:
            node = symbol.node
            if id(node) in seen:
                return
            module = node.module
            if isinstance(module, InputLayer) and id(symbol) not in input_ids:
                raise GraphDisconnectedError(
                    f"program {self.name!r}: output depends on Input {module.name!r} "
                    f"({module.data_model.__name__}) which is not in `inputs` "
                    f"(path: {' <- '.join([*path, module.name])})"
                )
            for parent in node.inbound:
                visit(parent, [*path, module.name])
            seen.add(id(node))
            order.append(node)

        for output in self.outputs:
            visit(output, [])
        reached = {id(node) for node in order}
        for symbol in self.inputs:
            if id(symbol.node) not in reached:
                raise GraphDisconnectedError(
                    f"program {self.name!r}: Input {symbol.node.module.name!r} "
                    f"({symbol.data_model.__name__}) is not connected to any output"
                )
        names: dict[str, Module] = {}
        for module in iter_modules([node.module for node in order]):
            other = names.setdefault(module.name, module)
            if other is not module:
                raise GraphDisconnectedError(
                    f"program {self.name!r}: two modules are named {module.name!r}"
                )
        return order

    @property
    def modules(self) -> list[Module]:
        """The modules of the graph, inputs first, each once (not the modules they hold)."""
        return list({id(node.module): node.module for node in self._order}.values())

    @property
    def all_modules(self) -> list[Module]:
        """Every module, with the modules each holds (a Branch's decision and branches)."""
        return list(iter_modules(self.modules))

    def get_module(self, name: str) -> Module:
        """The module of this name, in the graph or held by one of its modules."""
        for module in self.all_modules:
            if module.name == name:
                return module
        raise ValueError(f"program {self.name!r} has no module {name!r}")

    @property
    def variables(self) -> list[Variable]:
        """Every module's variables (those of the modules they hold included)."""
        return [v for m in self.modules for v in m.variables]

    @property
    def trainable_variables(self) -> list[Variable]:
        return [v for m in self.modules for v in m.trainable_variables]

    def get_variable(self, name: str) -> Variable:
        for variable in self.variables:
            if variable.name == name:
                return variable
        raise ValueError(f"program {self.name!r} has no variable {name!r}")

    @property
    def input_data_model(self) -> type[DataModel]:
        return self.inputs[0].data_model

    @property
    def output_data_model(self) -> type[DataModel]:
        """The first output's DataModel (see `output_data_models` for several)."""
        return self.outputs[0].data_model

    @property
    def input_data_models(self) -> list[type[DataModel]]:
        return [symbol.data_model for symbol in self.inputs]

    @property
    def output_data_models(self) -> list[type[DataModel]]:
        """Each output's DataModel, in order."""
        return [symbol.data_model for symbol in self.outputs]

    @property
    def language_models(self) -> list[Any]:
        """The distinct language models the program's modules call."""
        found: list[Any] = []
        for module in self.all_modules:
            lm = getattr(module, "language_model", None)
            if lm is not None and all(lm is not other for other in found):
                found.append(lm)
        return found

    def set_language_model(self, language_model: Any) -> None:
        """Point every module that calls a language model at `language_model`.

        After DSPy's ``Module.set_lm``: a program designed against one model runs
        against another (a provider chosen at run time, a scripted fake in a test).
        Only the modules change: an optimizer's or a reward's own models (OMEGA's,
        a judge's) are theirs to keep.

        Args:
            language_model: the model every Generator (and ChainOfThought) will call.

        Example:
            ```python
            program.set_language_model(LanguageModel(model="ollama/llama3"))
            ```
        """
        if language_model is None:
            raise ValueError("`language_model` is required, got None")
        for module in self.all_modules:
            if getattr(module, "language_model", None) is not None:
                cast(Any, module).language_model = language_model

    # Running --------------------------------------------------------------------------------

    def coerce_inputs(self, row: Any, *, where: str = "input") -> list[DataModel]:
        """Turn a row (DataModel, dict, or a tuple for several inputs) into input DataModels."""
        values = list(row) if (not self._single_input and isinstance(row, list | tuple)) else [row]
        if len(values) != len(self.inputs):
            raise DataError(
                f"{where}: program {self.name!r} takes {len(self.inputs)} inputs, got {len(values)}"
            )
        coerced = []
        for value, symbol in zip(values, self.inputs, strict=True):
            model = symbol.data_model
            if isinstance(value, model):
                coerced.append(value)
                continue
            try:
                coerced.append(model.model_validate(to_json(value)))
            except Exception as error:
                raise DataError(
                    f"{where} does not match the program's input DataModel "
                    f"{model.__name__}: {short_error(error)}"
                ) from error
        return coerced

    async def __call__(self, inputs: Any, *, training: bool = False) -> Any:
        """Run the program on one input (a DataModel, a dict, or a list for several inputs)."""
        return await self._run(inputs, training=training)

    async def trace(self, inputs: Any, *, training: bool = False) -> Trace:
        """Run the program on one input and report what each module saw and produced.

        Args:
            inputs: as for calling the program.
            training: run the modules in training mode (default False).

        Returns:
            A `Trace`: the program's output, and a `TraceStep` per module call, in
            the order the calls started: module name, input and output as JSON, the
            error of a module that failed, the module that called it (``parent``,
            for the modules a Branch or a SelfCritique holds), ``skipped`` for a
            module that did not run because an input was None (a branch not taken,
            a module after one that failed), and ``taken``, a Branch's labels.

        Example:
            ```python
            trace = await program.trace({"query": "What is the capital of France?"})
            for step in trace.steps:
                print(step.module, step.inputs, "->", step.outputs or step.error)
            ```
        """
        records: list[JsonDict] = []
        token = TRACE.set(records)
        try:
            output = await self._run(inputs, training=training)
        finally:
            TRACE.reset(token)
        return Trace(output=output, steps=[TraceStep.from_record(r) for r in records])

    async def _run(self, inputs: Any, *, training: bool) -> Any:
        values: dict[int, Any] = {}
        for symbol, value in zip(self.inputs, self.coerce_inputs(inputs), strict=True):
            values[id(symbol)] = value
        for node in self._order:
            if isinstance(node.module, InputLayer):
                continue
            args = [values[id(parent)] for parent in node.inbound]
            output = await node.module(args[0] if len(args) == 1 else args, training=training)
            if len(node.outputs) == 1:
                values[id(node.outputs[0])] = output
                continue
            slots = list(output) if isinstance(output, list | tuple) else [None] * len(node.outputs)
            if len(slots) != len(node.outputs):
                raise ProgramError(
                    f"module {node.module.name!r} gave {len(slots)} outputs, "
                    f"its node has {len(node.outputs)}"
                )
            for symbol, slot in zip(node.outputs, slots, strict=True):
                values[id(symbol)] = slot
        results = [values[id(symbol)] for symbol in self.outputs]
        return results[0] if self._single_output else results

    # Description ----------------------------------------------------------------------------

    def summary(self, print_fn: Callable[[str], None] | None = None) -> str:
        """Print (and return) a table of modules, their input and output models, variables."""
        rows = [("Module (type)", "Inputs", "Output", "Trainable")]
        for node in self._order:
            module = node.module
            rows.append(
                (
                    f"{module.name} ({type(module).__name__})",
                    ", ".join(p.data_model.__name__ for p in node.inbound) or "-",
                    ", ".join(o.data_model.__name__ for o in node.outputs),
                    str(len(module.trainable_variables)),
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        line = "-" * (sum(widths) + 9)
        out = io.StringIO()
        out.write(f'Program: "{self.name}"\n')
        if self.description:
            out.write(f"{self.description}\n")
        out.write(line + "\n")
        for i, row in enumerate(rows):
            out.write(" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + "\n")
            if i == 0:
                out.write(line + "\n")
        out.write(line + "\n")
        trainable = len(self.trainable_variables)
        out.write(
            f"Trainable variables: {trainable}  Non-trainable: {len(self.variables) - trainable}\n"
        )
        text = out.getvalue()
        (print_fn or print)(text.rstrip("\n"))
        return text

    # Serialisation --------------------------------------------------------------------------

    def get_config(self) -> JsonDict:
        """The architecture: modules with their configs and wiring.

        A module's ``inbound`` lists what it reads, in order: a module's name, or
        ``{"module": name, "output": i}`` for output ``i`` of a module that has
        several (a Branch's slot per label). The program's ``outputs`` name theirs
        the same way.
        """
        from optimizer_core.saving.object_registry import serialize_object

        modules = []
        for node in self._order:
            modules.append(
                {
                    "name": node.module.name,
                    "module": serialize_object(node.module),
                    "inbound": [_wire(p) for p in node.inbound],
                }
            )
        return {
            "name": self.name,
            "description": self.description,
            "modules": modules,
            "inputs": [s.node.module.name for s in self.inputs],
            "outputs": [_wire(s) for s in self.outputs],
            "single_input": self._single_input,
            "single_output": self._single_output,
        }

    @classmethod
    def from_config(cls, config: JsonDict) -> Program:
        from optimizer_core import modules as modules_family

        nodes: dict[str, Node] = {}
        for index, entry in enumerate(config["modules"]):
            where = f"modules[{index}].module"
            try:
                module = modules_family.deserialize(entry["module"])
            except RefusedObjectError:
                raise
            except SerializationError as error:
                error.within(where)
                raise
            except Exception as error:
                raise SerializationError(
                    f"cannot rebuild module {entry.get('name')!r}: {error}", path=where
                ) from error
            if isinstance(module, InputLayer):
                nodes[module.name] = module.output.node
                continue
            inbound = [
                _wired(nodes, wire, f"modules[{index}].inbound[{position}]", module.name)
                for position, wire in enumerate(entry["inbound"])
            ]
            try:
                output = module.symbolic_call(inbound)
            except (TypeError, ValueError) as error:
                raise SerializationError(
                    f"module {module.name!r} cannot take its inputs: {error}",
                    path=f"modules[{index}].inbound",
                ) from error
            first = output[0] if isinstance(output, tuple) else output
            nodes[module.name] = first.node
        inputs = [
            _wired(nodes, name, f"inputs[{position}]", "the program")
            for position, name in enumerate(config["inputs"])
        ]
        outputs = [
            _wired(nodes, wire, f"outputs[{position}]", "the program")
            for position, wire in enumerate(config["outputs"])
        ]
        return cls(
            inputs=inputs[0] if config.get("single_input", True) and len(inputs) == 1 else inputs,
            outputs=outputs[0]
            if config.get("single_output", True) and len(outputs) == 1
            else outputs,
            name=config.get("name"),
            description=config.get("description"),
        )

    def to_json(self) -> JsonDict:
        """The whole program as one versioned JSON document (what `save` writes).

        ``fit_state`` (the loop state of the last `fit`, see `programs.fit_state`)
        is there once a fit has ended an epoch.
        """
        document: JsonDict = {
            "format_version": FORMAT_VERSION,
            "kind": "optimizer_core.program",
            "program": self.get_config(),
            "compile_config": self.get_compile_config(),
            "variables": {v.name: v.get_json() for v in self.variables},
            "optimizer_state": self.optimizer.get_state() if self.optimizer is not None else None,
        }
        if self.fit_state is not None:
            document["fit_state"] = self.fit_state.to_json()
        return document

    @classmethod
    def from_json(cls, document: JsonDict, *, safe_mode: bool = True) -> Program:
        """Rebuild a program (compiled if it was) from `to_json`'s document.

        Args:
            document: what `to_json` returned.
            safe_mode: resolve saved names only by an exact lookup among registered
                objects (optimizer_core's own classes and `register_synalinks_serializable`),
                each only where its kind is expected; nothing is built when a name is
                refused (see `saving.safe_mode_scope`). Turn it off only for files you trust.

        Raises:
            RefusedObjectError: (safe mode) the document names an unregistered object
                or one of the wrong kind; its ``path`` and ``name`` locate it.
            SerializationError: a part of the document cannot be rebuilt; its ``path``
                says which (``program.modules[1].module.config.temperature``,
                ``variables.generator/state``, ``compile_config.reward``).
        """
        check_document(document, "optimizer_core.program")
        with safe_mode_scope(safe_mode):
            if safe_mode:
                check_names(document.get("program"), "program")
                check_names(document.get("compile_config"), "compile_config")
            try:
                program = cls.from_config(document["program"])
            except RefusedObjectError as error:
                if error.path:
                    raise
                raise error.at(locate(document, error.config) or "") from None
            except SerializationError as error:
                error.within("program")
                raise
            if document.get("compile_config"):
                try:
                    program.compile_from_config(document["compile_config"])
                except RefusedObjectError as error:
                    if error.path:
                        raise
                    raise error.at(locate(document, error.config) or "") from None
                except SerializationError as error:
                    place_error(error, document["compile_config"], "compile_config")
                    raise
        program._load_training_state(document)
        return program

    def resume_from(self, document: JsonDict, *, epoch: int) -> None:
        """Put a saved run back into this program; its next `fit` starts at `epoch`.

        What `BackupAndRestore` calls when `fit` starts after an interruption:
        the variables, the optimizer's state and the fit state of `document`
        (what `to_json` wrote, of a program built the same way) are loaded,
        and the `fit` under way (or the next one) runs from `epoch` on instead
        of its ``initial_epoch``. A program rebuilt with other generated names
        (``generator_1`` where the document says ``generator``) takes them by
        their place in the graph, as `load_variables` does.

        Raises:
            SerializationError: the document is not a program document, or a
                variable or state it holds does not fit this program; ``path``
                says where in the document.
        """
        check_document(document, "optimizer_core.program")
        renamed = names_here(self, document, where="the document")
        self._load_training_state(_renamed(document, renamed))
        self._resume_epoch = epoch

    def _load_training_state(self, document: JsonDict) -> None:
        """The variables, optimizer state and fit state of a program document."""
        self.set_variables_json(document.get("variables") or {})
        state = document.get("optimizer_state")
        if state and self.optimizer is not None:
            self.optimizer.set_state(state)
        self.fit_state = FitState.from_document(
            document, current=snapshot(self.trainable_variables)
        )

    def save(self, filepath: str | os.PathLike[str]) -> None:
        """Write architecture, compile config, variables and optimizer state to a ``.json`` file."""
        path = json_path(filepath, "filepath")
        write_json(path, self.to_json())

    @classmethod
    def load(cls, filepath: str | os.PathLike[str], *, safe_mode: bool = True) -> Program:
        """Read a program written by `save`; compiled when it was saved compiled.

        Args:
            filepath: a ``.json`` file written by `save`.
            safe_mode: see `from_json`.
        """
        path = json_path(filepath, "filepath")
        return cls.from_json(read_json(path), safe_mode=safe_mode)

    def get_variables_json(self) -> JsonDict:
        return {v.name: v.get_json() for v in self.variables}

    def set_variables_json(self, variables: JsonDict) -> None:
        """Load variables by name (`get_variables_json`'s dict).

        Raises:
            SerializationError: a name no variable of the program has, or a value its
                variable refuses; ``paths`` holds ``variables.<name>`` for each.
        """
        known = {v.name: v for v in self.variables}
        unknown = sorted(set(variables) - set(known))
        if unknown:
            raise SerializationError(
                f"program {self.name!r} has no variable(s) {unknown}; it has {sorted(known)}",
                path=f"variables.{unknown[0]}",
                paths=[f"variables.{name}" for name in unknown],
                reason=NO_SUCH_VARIABLE,
            )
        for name, value in variables.items():
            try:
                known[name].load_json(value)
            except Exception as error:
                reason = short_error(error)
                raise SerializationError(
                    f"variable {name!r}: {reason}", path=f"variables.{name}", reason=reason
                ) from error

    def get_state_tree(self) -> JsonDict:
        """``{module name: {variable path: JSON state}}`` of every variable.

        Trainable and non-trainable alike; `set_state_tree` loads it back.
        """
        return state_tree(self)

    def set_state_tree(self, tree: JsonDict) -> None:
        """Load a `get_state_tree` back, each variable found by module and path.

        Raises:
            SerializationError: an unknown module or variable path (named in the
                error) or a tree not shaped ``{module: {path: object}}``.
        """
        set_state_tree(self, tree)

    def get_variables_layout(self) -> list[JsonDict]:
        """Where each variable sits in the graph, independent of generated names.

        See `variable_files.variables_layout`: `load_variables` matches by it when
        the names differ.
        """
        return variables_layout(self.modules)

    def save_variables(self, filepath: str | os.PathLike[str]) -> None:
        """Write only the variables (trainable fields and optimizer bookkeeping).

        The file keys variables by name and also records their `get_variables_layout`,
        so `load_variables` can load it into a program rebuilt with other names.
        """
        save_variables(self, filepath)

    def load_variables(self, filepath: str | os.PathLike[str]) -> None:
        """Read variables written by `save_variables` (or a program file) into this program.

        Matched by name when every saved name exists here, else by their place in
        the graph (see `variable_files.load_variables`); when neither matches, the
        error says what differs.

        Args:
            filepath: a ``.json`` file written by `save_variables` or `save`.
        """
        load_variables(self, filepath)

    def __repr__(self) -> str:
        return f"<Program {self.name}: {len(self.modules)} modules>"


register_library_objects(Program)
JudgeProgram.register(Program)  # a ProgramAsJudge's saved judge may be a Program


def _renamed(document: JsonDict, names: dict[str, str]) -> JsonDict:
    """`document` with its variables (and its best epoch's) under this program's names."""
    if all(saved == name for saved, name in names.items()):
        return document
    variables = {names[k]: v for k, v in (document.get("variables") or {}).items()}
    document = {**document, "variables": variables}
    fit_state = document.get("fit_state")
    best = fit_state.get("best") if isinstance(fit_state, dict) else None
    if isinstance(fit_state, dict) and isinstance(best, dict):
        values = best.get("variables")
        if isinstance(values, dict):
            values = {names.get(k, k): v for k, v in values.items()}
            document["fit_state"] = {**fit_state, "best": {**best, "variables": values}}
    return document


def _as_symbol_list(value: Any, argument: str) -> list[SymbolicDataModel]:
    if isinstance(value, SymbolicDataModel) or not isinstance(value, list | tuple):
        items = [value] if value is not None else []
    else:
        items = list(value)
    if not items:
        raise GraphDisconnectedError(f"`{argument}` must name at least one symbolic data model")
    for item in items:
        if not isinstance(item, SymbolicDataModel):
            hint = (
                " (did you forget `await` before the module call?)" if _is_coroutine(item) else ""
            )
            raise TypeError(
                f"`{argument}` must be symbolic data models from Input() or module calls, "
                f"got {type(item).__name__}{hint}"
            )
    return items


def _is_coroutine(value: Any) -> bool:
    import inspect

    if inspect.iscoroutine(value):
        value.close()
        return True
    return False


def _wire(symbol: SymbolicDataModel) -> str | JsonDict:
    """How a document names a module's output: its name, or ``{module, output}``."""
    if len(symbol.node.outputs) == 1:
        return symbol.node.module.name
    return {"module": symbol.node.module.name, "output": symbol.index}


def _wired(nodes: dict[str, Node], wire: Any, path: str, reader: str) -> SymbolicDataModel:
    """The output a document's ``inbound`` / ``outputs`` entry names (see `Program.get_config`)."""
    if isinstance(wire, dict):
        name, index = wire.get("module"), wire.get("output")
    else:
        name, index = wire, None
    node = nodes.get(name) if isinstance(name, str) else None
    if node is None:
        raise SerializationError(
            f"{reader} is wired to unknown module {name!r} (the modules before it: "
            f"{sorted(nodes)})",
            path=path,
        )
    if index is None:
        if len(node.outputs) != 1:
            raise SerializationError(
                f"module {name!r} has {len(node.outputs)} outputs: name one as "
                f'{{"module": {name!r}, "output": i}}',
                path=path,
            )
        return node.outputs[0]
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(node.outputs):
        raise SerializationError(
            f"module {name!r} has outputs 0 to {len(node.outputs) - 1}, got {index!r}",
            path=f"{path}.output",
        )
    return node.outputs[index]
