"""Program: a graph of modules built with the functional API, trainable as a whole."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, cast

from optimizer_core.datamodels import DataModel, JsonDict, to_json
from optimizer_core.exceptions import DataError, GraphDisconnectedError, SerializationError
from optimizer_core.modules.input import InputLayer
from optimizer_core.modules.module import TRACE, Module, SymbolicDataModel, unique_name
from optimizer_core.programs.best_epoch import snapshot
from optimizer_core.programs.fit_state import FitState
from optimizer_core.programs.results import Trace, TraceStep
from optimizer_core.programs.trainer import Trainer
from optimizer_core.rewards.program_as_judge import JudgeProgram
from optimizer_core.saving.document_check import check_names
from optimizer_core.saving.object_registry import (
    RefusedObjectError,
    register_library_objects,
    safe_mode_scope,
)
from optimizer_core.saving.paths import locate, place_error
from optimizer_core.variables import Variable

FORMAT_VERSION = 1


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

    def _topological_order(self) -> list[tuple[Module, list[SymbolicDataModel], SymbolicDataModel]]:
        input_ids = {id(s) for s in self.inputs}
        for symbol in self.inputs:
            if not isinstance(symbol.node.module, InputLayer):
                raise GraphDisconnectedError(
                    f"program {self.name!r}: `inputs` must come from Input(), "
                    f"got the output of {symbol.node.module.name!r}"
                )
        order: list[tuple[Module, list[SymbolicDataModel], SymbolicDataModel]] = []
        seen: set[int] = set()
        names: dict[str, Module] = {}

        def visit(symbol: SymbolicDataModel, path: list[str]) -> None:
            if id(symbol) in seen:
                return
            module = symbol.node.module
            if isinstance(module, InputLayer) and id(symbol) not in input_ids:
                raise GraphDisconnectedError(
                    f"program {self.name!r}: output depends on Input {module.name!r} "
                    f"({module.data_model.__name__}) which is not in `inputs` "
                    f"(path: {' <- '.join([*path, module.name])})"
                )
            for parent in symbol.node.inbound:
                visit(parent, [*path, module.name])
            seen.add(id(symbol))
            other = names.get(module.name)
            if other is not None and other is not module:
                raise GraphDisconnectedError(
                    f"program {self.name!r}: two modules are named {module.name!r}"
                )
            names[module.name] = module
            order.append((module, symbol.node.inbound, symbol))

        for output in self.outputs:
            visit(output, [])
        reached = {id(symbol) for _, _, symbol in order}
        for symbol in self.inputs:
            if id(symbol) not in reached:
                raise GraphDisconnectedError(
                    f"program {self.name!r}: Input {symbol.node.module.name!r} "
                    f"({symbol.data_model.__name__}) is not connected to any output"
                )
        return order

    @property
    def modules(self) -> list[Module]:
        return [module for module, _, _ in self._order]

    def get_module(self, name: str) -> Module:
        for module in self.modules:
            if module.name == name:
                return module
        raise ValueError(f"program {self.name!r} has no module {name!r}")

    @property
    def variables(self) -> list[Variable]:
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
        return self.outputs[0].data_model

    @property
    def language_models(self) -> list[Any]:
        """The distinct language models the program's modules call."""
        found: list[Any] = []
        for module in self.modules:
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
        for module in self.modules:
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
                    f"{model.__name__}: {_short_error(error)}"
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
            A `Trace`: the program's output, and a `TraceStep` (module name, input
            and output as JSON, error) per module run, in the order they ran. A
            Generator whose model call failed has ``outputs`` None and the error;
            the modules after it do not run and have no step.

        Example:
            ```python
            trace = await program.trace({"query": "What is the capital of France?"})
            for step in trace.steps:
                print(step.module, step.inputs, "->", step.outputs or step.error)
            ```
        """
        steps: list[TraceStep] = []
        token = TRACE.set([])  # the modules' own records (a Generator's error) land here
        try:
            output = await self._run(inputs, training=training, steps=steps)
        finally:
            TRACE.reset(token)
        return Trace(output=output, steps=steps)

    async def _run(
        self, inputs: Any, *, training: bool, steps: list[TraceStep] | None = None
    ) -> Any:
        values: dict[int, Any] = {}
        for symbol, value in zip(self.inputs, self.coerce_inputs(inputs), strict=True):
            values[id(symbol)] = value
        for module, inbound, symbol in self._order:
            if isinstance(module, InputLayer):
                continue
            args = [values[id(parent)] for parent in inbound]
            if any(arg is None for arg in args):
                values[id(symbol)] = None
                continue
            arg = args[0] if len(args) == 1 else args
            records = TRACE.get() if steps is not None else None
            seen = len(records) if records is not None else 0
            values[id(symbol)] = output = await module(arg, training=training)
            if steps is not None:
                own = [r for r in (records or [])[seen:] if r.get("module") == module.name]
                steps.append(
                    TraceStep(
                        module=module.name,
                        inputs=_as_json(arg),
                        outputs=_as_json(output),
                        error=own[-1].get("error") if own else None,
                    )
                )
        results = [values[id(symbol)] for symbol in self.outputs]
        return results[0] if self._single_output else results

    # Description ----------------------------------------------------------------------------

    def summary(self, print_fn: Callable[[str], None] | None = None) -> str:
        """Print (and return) a table of modules, their input and output models, variables."""
        rows = [("Module (type)", "Inputs", "Output", "Trainable")]
        for module, inbound, symbol in self._order:
            rows.append(
                (
                    f"{module.name} ({type(module).__name__})",
                    ", ".join(p.data_model.__name__ for p in inbound) or "-",
                    symbol.data_model.__name__,
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
        """The architecture: modules with their configs and wiring."""
        from optimizer_core.saving.object_registry import serialize_object

        symbol_names: dict[int, str] = {}
        modules = []
        for module, inbound, symbol in self._order:
            symbol_names[id(symbol)] = module.name
            modules.append(
                {
                    "name": module.name,
                    "module": serialize_object(module),
                    "inbound": [symbol_names[id(p)] for p in inbound],
                }
            )
        return {
            "name": self.name,
            "description": self.description,
            "modules": modules,
            "inputs": [s.node.module.name for s in self.inputs],
            "outputs": [symbol_names[id(s)] for s in self.outputs],
            "single_input": self._single_input,
            "single_output": self._single_output,
        }

    @classmethod
    def from_config(cls, config: JsonDict) -> Program:
        from optimizer_core import modules as modules_family

        symbols: dict[str, SymbolicDataModel] = {}
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
                symbols[module.name] = module.output
                continue
            try:
                inbound = [symbols[name] for name in entry["inbound"]]
            except KeyError as missing:
                position = list(entry["inbound"]).index(missing.args[0])
                raise SerializationError(
                    f"module {module.name!r} is wired to unknown module {missing.args[0]!r}",
                    path=f"modules[{index}].inbound[{position}]",
                ) from None
            symbols[module.name] = module.symbolic_call(inbound)
        try:
            inputs = [symbols[name] for name in config["inputs"]]
            outputs = [symbols[name] for name in config["outputs"]]
        except KeyError as missing:
            raise SerializationError(f"unknown input/output module {missing.args[0]!r}") from None
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
        _check_document(document, "optimizer_core.program")
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
        program.set_variables_json(document.get("variables") or {})
        state = document.get("optimizer_state")
        if state and program.optimizer is not None:
            program.optimizer.set_state(state)
        program.fit_state = FitState.from_document(
            document, current=snapshot(program.trainable_variables)
        )
        return program

    def save(self, filepath: str | os.PathLike[str]) -> None:
        """Write architecture, compile config, variables and optimizer state to a ``.json`` file."""
        path = _json_path(filepath, "filepath")
        _write_json(path, self.to_json())

    @classmethod
    def load(cls, filepath: str | os.PathLike[str], *, safe_mode: bool = True) -> Program:
        """Read a program written by `save`; compiled when it was saved compiled.

        Args:
            filepath: a ``.json`` file written by `save`.
            safe_mode: see `from_json`.
        """
        path = _json_path(filepath, "filepath")
        return cls.from_json(_read_json(path), safe_mode=safe_mode)

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
                reason=_NO_SUCH_VARIABLE,
            )
        for name, value in variables.items():
            try:
                known[name].load_json(value)
            except Exception as error:
                reason = _short_error(error)
                raise SerializationError(
                    f"variable {name!r}: {reason}", path=f"variables.{name}", reason=reason
                ) from error

    def get_variables_layout(self) -> list[JsonDict]:
        """Where each variable sits in the graph, independent of generated names.

        One entry per variable, in `variables` order: ``variable`` (its name),
        ``module`` (its module's name), ``module_index`` (the module's position in
        the topological order, Inputs included), ``module_class`` and ``path`` (the
        variable's name within its module, ``state`` for ``generator_1/state``).
        `load_variables` matches by this when the names differ, the way Keras 3
        names saved weights by their place in the model rather than by layer name.
        """
        layout: list[JsonDict] = []
        seen: set[int] = set()
        for index, (module, _, _) in enumerate(self._order):
            if id(module) in seen:
                continue
            seen.add(id(module))
            for variable in module.variables:
                layout.append(
                    {
                        "variable": variable.name,
                        "module": module.name,
                        "module_index": index,
                        "module_class": type(module).__name__,
                        "path": _path_in_module(module.name, variable.name),
                    }
                )
        return layout

    def save_variables(self, filepath: str | os.PathLike[str]) -> None:
        """Write only the variables (trainable fields and optimizer bookkeeping).

        The file keys variables by name and also records their `get_variables_layout`,
        so `load_variables` can load it into a program rebuilt with other names.
        """
        path = _json_path(filepath, "filepath")
        _write_json(
            path,
            {
                "format_version": FORMAT_VERSION,
                "kind": "optimizer_core.variables",
                "program": self.name,
                "variables": self.get_variables_json(),
                "layout": self.get_variables_layout(),
            },
        )

    def load_variables(self, filepath: str | os.PathLike[str]) -> None:
        """Read variables written by `save_variables` (or a program file) into this program.

        Variables are matched by name when every saved name exists here. Otherwise
        (a program rebuilt in a notebook gets ``generator_1`` where the file says
        ``generator``) they are matched by structure: the module's position in the
        graph, its class and the variable's name within it. A file without a layout
        (written before layouts were saved) is matched by the order of the modules
        holding variables and their names less any ``_<n>`` suffix. When neither
        matches, the error says what differs.

        Args:
            filepath: a ``.json`` file written by `save_variables` or `save`.
        """
        path = _json_path(filepath, "filepath")
        document = _read_json(path)
        variables = document.get("variables") or {}
        if not isinstance(variables, dict):
            raise SerializationError(
                f"{path}: `variables` must be an object keyed by name", path="variables"
            )
        if document.get("kind") == "optimizer_core.program":
            _check_document(document, "optimizer_core.program")
            layout = _layout_from_program_config(document.get("program"), list(variables))
        else:
            _check_document(document, "optimizer_core.variables")
            layout = document.get("layout")
            if layout is not None and not _is_layout(layout):
                raise SerializationError(
                    f"{path}: `layout` must be a list of objects with `variable`, `module`, "
                    "`module_index`, `module_class` and `path`",
                    path="layout",
                )
        known = {v.name for v in self.variables}
        if set(variables) <= known:
            self.set_variables_json(variables)
            return
        renamed = self._match_variables_by_structure(list(variables), layout)
        for saved_name, name in renamed.items():
            try:
                self.get_variable(name).load_json(variables[saved_name])
            except Exception as error:
                reason = _short_error(error)
                raise SerializationError(
                    f"variable {name!r} (saved as {saved_name!r}): {reason}",
                    path=f"variables.{saved_name}",
                    reason=reason,
                ) from error

    def _match_variables_by_structure(
        self, saved_names: list[str], layout: list[JsonDict] | None
    ) -> dict[str, str]:
        """Map each saved variable name to this program's variable in the same place."""
        if layout is not None:
            saved = [
                (
                    (e["module_index"], e["module_class"], e["path"]),
                    e["variable"],
                    e["module"],
                )
                for e in layout
                if e["variable"] in saved_names
            ]
            here = [
                ((e["module_index"], e["module_class"], e["path"]), e["variable"], e["module"])
                for e in self.get_variables_layout()
            ]
            unplaced = sorted(set(saved_names) - {name for _, name, _ in saved})
        else:
            saved = _layout_from_names(saved_names)
            here = _layout_from_names([v.name for v in self.variables])
            unplaced = []
        by_key = {key: name for key, name, _ in here}
        saved_keys = [key for key, _, _ in saved]
        if (
            not unplaced
            and len(set(saved_keys)) == len(saved_keys)
            and set(saved_keys) == set(by_key)
        ):
            return {name: by_key[key] for key, name, _ in saved}
        unknown = sorted(set(saved_names) - {v.name for v in self.variables})
        differences = _structure_differences(saved, here, by_class=layout is not None)
        if unplaced:
            differences.append(f"the file's layout does not place {unplaced}")
        how = (
            "module position in the graph, class, variable name"
            if layout is not None
            else "the file has no layout: order of the modules holding variables, "
            "their names less any '_<n>' suffix"
        )
        raise SerializationError(
            f"program {self.name!r} has no variable(s) {unknown}; it has "
            f"{sorted(v.name for v in self.variables)}. By structure ({how}) they differ "
            "too: " + "; ".join(differences or ["the file places a variable twice"]),
            path=f"variables.{unknown[0]}" if unknown else "variables",
            paths=[f"variables.{name}" for name in unknown] or ["variables"],
            reason=f"{_NO_SUCH_VARIABLE}, by name or by structure",
        )

    def __repr__(self) -> str:
        return f"<Program {self.name}: {len(self.modules)} modules>"


register_library_objects(Program)
JudgeProgram.register(Program)  # a ProgramAsJudge's saved judge may be a Program


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


_NUMERIC_SUFFIX = re.compile(r"_\d+$")
_NO_SUCH_VARIABLE = "no module of the program has this variable"

# One variable's place: (structural key, variable name, module name).
_Placed = tuple[tuple[Any, ...], str, str]


def _path_in_module(module_name: str, variable_name: str) -> str:
    prefix = f"{module_name}/"
    return variable_name[len(prefix) :] if variable_name.startswith(prefix) else variable_name


def _is_layout(layout: Any) -> bool:
    fields = {"variable": str, "module": str, "module_index": int, "module_class": str, "path": str}
    return isinstance(layout, list) and all(
        isinstance(entry, dict)
        and all(isinstance(entry.get(key), kind) for key, kind in fields.items())
        for entry in layout
    )


def _layout_from_program_config(config: Any, variable_names: list[str]) -> list[JsonDict] | None:
    """A program document's variable layout, read from its module list (same order as
    `Program.get_config` writes it); None when the document has no usable module list."""
    modules = config.get("modules") if isinstance(config, dict) else None
    if not isinstance(modules, list):
        return None
    layout: list[JsonDict] = []
    seen: set[str] = set()
    for index, entry in enumerate(modules):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            return None
        name = entry["name"]
        if name in seen:
            continue
        seen.add(name)
        serialized = entry.get("module")
        class_name = serialized.get("class_name") if isinstance(serialized, dict) else None
        for variable in variable_names:
            if variable.startswith(f"{name}/"):
                layout.append(
                    {
                        "variable": variable,
                        "module": name,
                        "module_index": index,
                        "module_class": str(class_name),
                        "path": _path_in_module(name, variable),
                    }
                )
    return layout


def _layout_from_names(names: list[str]) -> list[_Placed]:
    """Places read from ``module/variable`` names alone: the module's rank among the
    modules holding variables, its name less a generated ``_<n>`` suffix, the rest."""
    ranks: dict[str, int] = {}
    placed: list[_Placed] = []
    for name in names:
        module, _, path = name.rpartition("/")
        rank = ranks.setdefault(module, len(ranks))
        placed.append(((rank, _NUMERIC_SUFFIX.sub("", module), path), name, module))
    return placed


def _structure_differences(
    saved: list[_Placed], here: list[_Placed], *, by_class: bool
) -> list[str]:
    """What differs, module by module (by position), between two lists of places."""

    def groups(placed: list[_Placed]) -> dict[int, tuple[str, str, list[str]]]:
        result: dict[int, tuple[str, str, list[str]]] = {}
        for (index, kind, path), _, module in placed:
            result.setdefault(index, (str(kind), module, []))[2].append(str(path))
        return result

    saved_groups, here_groups = groups(saved), groups(here)
    label = "module" if by_class else "variable-holding module"

    def describe(kind: str, module: str) -> str:
        return f"{kind} {module!r}" if by_class else repr(module)

    differences: list[str] = []
    for index in sorted(set(saved_groups) | set(here_groups)):
        s, h = saved_groups.get(index), here_groups.get(index)
        if h is None and s is not None:
            differences.append(
                f"{label} #{index} ({describe(s[0], s[1])}, variables {s[2]}) "
                "is in the file but not in this program"
            )
        elif s is None and h is not None:
            differences.append(
                f"{label} #{index} ({describe(h[0], h[1])}, variables {h[2]}) "
                "is in this program but not in the file"
            )
        elif s is not None and h is not None and s[0] != h[0]:
            what = "a " if by_class else ""
            differences.append(
                f"{label} #{index} is {what}{describe(s[0], s[1])} in the file "
                f"but {what}{describe(h[0], h[1])} here"
            )
        elif s is not None and h is not None and sorted(s[2]) != sorted(h[2]):
            differences.append(
                f"{label} #{index} ({describe(h[0], h[1])}) holds variables {s[2]} "
                f"in the file but {h[2]} here"
            )
    return differences


def _as_json(value: Any) -> Any:
    """A module's input or output as JSON (a list of them for several)."""
    if isinstance(value, list | tuple):
        return [_as_json(item) for item in value]
    return to_json(value)


def _short_error(error: Exception) -> str:
    text = str(error)
    return text if len(text) < 600 else text[:600] + "..."


def _json_path(filepath: str | os.PathLike[str], argument: str) -> str:
    path = os.fspath(filepath)
    if not path.endswith(".json"):
        raise ValueError(f"`{argument}` must end with '.json', got {path!r}")
    return path


def _write_json(path: str, document: JsonDict) -> None:
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, ensure_ascii=False)
    os.replace(tmp, path)


def _read_json(path: str) -> JsonDict:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except json.JSONDecodeError as error:
        raise SerializationError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(document, dict):
        raise SerializationError(f"{path}: expected a JSON object at the top level")
    return document


def _check_document(document: JsonDict, kind: str) -> None:
    found = document.get("kind")
    if found != kind:
        raise SerializationError(f"expected a {kind!r} document, got kind {found!r}", path="kind")
    version = document.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise SerializationError(
            f"unsupported format_version {version!r} (this library reads up to {FORMAT_VERSION})",
            path="format_version",
        )
