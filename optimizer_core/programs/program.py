"""Program: a graph of modules built with the functional API, trainable as a whole."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from optimizer_core.datamodels import DataModel, JsonDict, to_json
from optimizer_core.exceptions import DataError, GraphDisconnectedError, SerializationError
from optimizer_core.modules.input import InputLayer
from optimizer_core.modules.module import Module, SymbolicDataModel, unique_name
from optimizer_core.programs.trainer import Trainer
from optimizer_core.saving.object_registry import safe_mode_scope
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
            values[id(symbol)] = await module(
                args[0] if len(args) == 1 else args, training=training
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
        for entry in config["modules"]:
            try:
                module = modules_family.deserialize(entry["module"])
            except SerializationError:
                raise
            except Exception as error:
                raise SerializationError(
                    f"cannot rebuild module {entry.get('name')!r}: {error}"
                ) from error
            if isinstance(module, InputLayer):
                symbols[module.name] = module.output
                continue
            try:
                inbound = [symbols[name] for name in entry["inbound"]]
            except KeyError as missing:
                raise SerializationError(
                    f"module {module.name!r} is wired to unknown module {missing.args[0]!r}"
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
        """The whole program as one versioned JSON document (what `save` writes)."""
        document: JsonDict = {
            "format_version": FORMAT_VERSION,
            "kind": "optimizer_core.program",
            "program": self.get_config(),
            "compile_config": self.get_compile_config(),
            "variables": {v.name: v.get_json() for v in self.variables},
            "optimizer_state": self.optimizer.get_state() if self.optimizer is not None else None,
        }
        return document

    @classmethod
    def from_json(cls, document: JsonDict, *, safe_mode: bool = True) -> Program:
        """Rebuild a program (compiled if it was) from `to_json`'s document.

        Args:
            document: what `to_json` returned.
            safe_mode: resolve saved names only to registered objects, optimizer_core's
                own, or modules already imported (see `saving.safe_mode_scope`); turn it
                off only for files you trust.
        """
        _check_document(document, "optimizer_core.program")
        with safe_mode_scope(safe_mode):
            program = cls.from_config(document["program"])
            if document.get("compile_config"):
                program.compile_from_config(document["compile_config"])
        program.set_variables_json(document.get("variables") or {})
        state = document.get("optimizer_state")
        if state and program.optimizer is not None:
            program.optimizer.set_state(state)
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
        known = {v.name: v for v in self.variables}
        unknown = sorted(set(variables) - set(known))
        if unknown:
            raise SerializationError(
                f"program {self.name!r} has no variable(s) {unknown}; it has {sorted(known)}"
            )
        for name, value in variables.items():
            try:
                known[name].load_json(value)
            except Exception as error:
                raise SerializationError(f"variable {name!r}: {_short_error(error)}") from error

    def save_variables(self, filepath: str | os.PathLike[str]) -> None:
        """Write only the variables (trainable fields and optimizer bookkeeping)."""
        path = _json_path(filepath, "filepath")
        _write_json(
            path,
            {
                "format_version": FORMAT_VERSION,
                "kind": "optimizer_core.variables",
                "program": self.name,
                "variables": self.get_variables_json(),
            },
        )

    def load_variables(self, filepath: str | os.PathLike[str]) -> None:
        """Read variables written by `save_variables` (or a program file) into this program."""
        path = _json_path(filepath, "filepath")
        document = _read_json(path)
        if document.get("kind") == "optimizer_core.program":
            _check_document(document, "optimizer_core.program")
        else:
            _check_document(document, "optimizer_core.variables")
        self.set_variables_json(document.get("variables") or {})

    def __repr__(self) -> str:
        return f"<Program {self.name}: {len(self.modules)} modules>"


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
        raise SerializationError(f"expected a {kind!r} document, got kind {found!r}")
    version = document.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise SerializationError(
            f"unsupported format_version {version!r} (this library reads up to {FORMAT_VERSION})"
        )
