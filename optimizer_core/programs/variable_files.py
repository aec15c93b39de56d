"""Program files on disk, and variables loaded into a program whose names differ.

`Program.save` / `load` write and read a whole program document (`write_json`,
`read_json`, `check_document`); `save_variables` / `load_variables` write and
read only its variables. A variables file keys them by name and records where
each sits in the graph (`variables_layout`: the module's position in topological
order, its class, the variable's name within it), so a program rebuilt with
other names (``generator_1`` where the file says ``generator``) still loads it,
the way Keras 3 names saved weights by their place in the model rather than by
layer name.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import Any, Protocol

from optimizer_core.datamodels import JsonDict
from optimizer_core.exceptions import SerializationError
from optimizer_core.modules.module import Module
from optimizer_core.variables import Variable

FORMAT_VERSION = 1
"""The version of the documents this library writes (and the newest it reads)."""
NO_SUCH_VARIABLE = "no module of the program has this variable"
"""Why a saved variable name is refused (the reason beside its ``variables.<name>`` path)."""

_NUMERIC_SUFFIX = re.compile(r"_\d+$")

# One variable's place: (structural key, variable name, module name).
_Placed = tuple[tuple[Any, ...], str, str]


class VariableHolder(Protocol):
    """What these functions need of a program (`Program` provides it)."""

    name: str

    @property
    def modules(self) -> list[Module]: ...

    @property
    def variables(self) -> list[Variable]: ...

    def get_variable(self, name: str) -> Variable: ...

    def get_variables_json(self) -> JsonDict: ...

    def set_variables_json(self, variables: JsonDict) -> None: ...


def variables_layout(modules: Sequence[Module]) -> list[JsonDict]:
    """Where each variable sits in the graph, independent of generated names.

    One entry per variable of `modules` (a program's, in topological order, Inputs
    included), in that order: ``variable`` (its name),
    ``module`` (its module's name), ``module_index`` (the module's position in
    the topological order, Inputs included), ``module_class`` and ``path`` (the
    variable's name within its module, ``state`` for ``generator_1/state``; for a
    module held by another, its position there first: ``0:state`` for the decision
    of a Branch). `load_variables` matches by this when the names differ, the way
    Keras 3 names saved weights by their place in the model rather than by layer name.
    """
    layout: list[JsonDict] = []
    seen: set[int] = set()
    for index, module in enumerate(modules):
        if id(module) in seen:
            continue
        seen.add(id(module))
        for variable, path in _variable_paths(module):
            layout.append(
                {
                    "variable": variable.name,
                    "module": module.name,
                    "module_index": index,
                    "module_class": type(module).__name__,
                    "path": path,
                }
            )
    return layout


def _variable_paths(module: Module, prefix: str = "") -> list[tuple[Variable, str]]:
    """A module's variables (its own, then its held modules'), each with its path in it."""
    found = [(v, prefix + _path_in_module(module.name, v.name)) for v in module.own_variables]
    for position, held in enumerate(module.submodules):
        found.extend(_variable_paths(held, f"{prefix}{position}:"))
    return found


def save_variables(program: VariableHolder, filepath: str | os.PathLike[str]) -> None:
    """Write only the variables (trainable fields and optimizer bookkeeping).

    The file keys variables by name and also records their `variables_layout`, so
    `load_variables` can load it into a program rebuilt with other names.
    """
    path = json_path(filepath, "filepath")
    write_json(
        path,
        {
            "format_version": FORMAT_VERSION,
            "kind": "optimizer_core.variables",
            "program": program.name,
            "variables": program.get_variables_json(),
            "layout": variables_layout(program.modules),
        },
    )


def load_variables(program: VariableHolder, filepath: str | os.PathLike[str]) -> None:
    """Read variables written by `save_variables` (or a program file) into `program`.

    Variables are matched by name when every saved name exists here. Otherwise
    (a program rebuilt in a notebook gets ``generator_1`` where the file says
    ``generator``) they are matched by structure: the module's position in the
    graph, its class and the variable's name within it. A file without a layout
    (written before layouts were saved) is matched by the order of the modules
    holding variables and their names less any ``_<n>`` suffix. When neither
    matches, the error says what differs.

    Args:
        program: the program to load them into.
        filepath: a ``.json`` file written by `save_variables` or `save`.
    """
    path = json_path(filepath, "filepath")
    document = read_json(path)
    renamed = names_here(program, document, where=path)
    variables = document.get("variables") or {}
    if all(saved == name for saved, name in renamed.items()):
        program.set_variables_json(variables)
        return
    for saved_name, name in renamed.items():
        try:
            program.get_variable(name).load_json(variables[saved_name])
        except Exception as error:
            reason = short_error(error)
            raise SerializationError(
                f"variable {name!r} (saved as {saved_name!r}): {reason}",
                path=f"variables.{saved_name}",
                reason=reason,
            ) from error


def names_here(program: VariableHolder, document: JsonDict, *, where: str) -> dict[str, str]:
    """Each variable name of a saved document, mapped to its variable's name in `program`.

    By name when every saved name exists here, else by structure (see
    `load_variables`).

    Args:
        program: the program the variables go into.
        document: a program document or a variables document.
        where: the file it was read from, for errors.

    Raises:
        SerializationError: the document's variables or layout are malformed, or
            neither names nor structure match; the error says what differs.
    """
    variables = document.get("variables") or {}
    if not isinstance(variables, dict):
        raise SerializationError(
            f"{where}: `variables` must be an object keyed by name", path="variables"
        )
    if document.get("kind") == "optimizer_core.program":
        check_document(document, "optimizer_core.program")
        layout = _layout_from_program_config(document.get("program"), list(variables))
    else:
        check_document(document, "optimizer_core.variables")
        layout = document.get("layout")
        if layout is not None and not _is_layout(layout):
            raise SerializationError(
                f"{where}: `layout` must be a list of objects with `variable`, `module`, "
                "`module_index`, `module_class` and `path`",
                path="layout",
            )
    known = {v.name for v in program.variables}
    if set(variables) <= known:
        return {name: name for name in variables}
    return _match_by_structure(program, list(variables), layout)


def _match_by_structure(
    program: VariableHolder, saved_names: list[str], layout: list[JsonDict] | None
) -> dict[str, str]:
    """Map each saved variable name to the program's variable in the same place."""
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
            for e in variables_layout(program.modules)
        ]
        unplaced = sorted(set(saved_names) - {name for _, name, _ in saved})
    else:
        saved = _layout_from_names(saved_names)
        here = _layout_from_names([v.name for v in program.variables])
        unplaced = []
    by_key = {key: name for key, name, _ in here}
    saved_keys = [key for key, _, _ in saved]
    if not unplaced and len(set(saved_keys)) == len(saved_keys) and set(saved_keys) == set(by_key):
        return {name: by_key[key] for key, name, _ in saved}
    unknown = sorted(set(saved_names) - {v.name for v in program.variables})
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
        f"program {program.name!r} has no variable(s) {unknown}; it has "
        f"{sorted(v.name for v in program.variables)}. By structure ({how}) they differ "
        "too: " + "; ".join(differences or ["the file places a variable twice"]),
        path=f"variables.{unknown[0]}" if unknown else "variables",
        paths=[f"variables.{name}" for name in unknown] or ["variables"],
        reason=f"{NO_SUCH_VARIABLE}, by name or by structure",
    )


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


def short_error(error: Exception) -> str:
    text = str(error)
    return text if len(text) < 600 else text[:600] + "..."


def json_path(filepath: str | os.PathLike[str], argument: str) -> str:
    path = os.fspath(filepath)
    if not path.endswith(".json"):
        raise ValueError(f"`{argument}` must end with '.json', got {path!r}")
    return path


def write_json(path: str, document: JsonDict) -> None:
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, ensure_ascii=False)
    os.replace(tmp, path)


def read_json(path: str) -> JsonDict:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except json.JSONDecodeError as error:
        raise SerializationError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(document, dict):
        raise SerializationError(f"{path}: expected a JSON object at the top level")
    return document


def check_document(document: JsonDict, kind: str) -> None:
    found = document.get("kind")
    if found != kind:
        raise SerializationError(f"expected a {kind!r} document, got kind {found!r}", path="kind")
    version = document.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise SerializationError(
            f"unsupported format_version {version!r} (this library reads up to {FORMAT_VERSION})",
            path="format_version",
        )


__all__ = [
    "FORMAT_VERSION",
    "NO_SUCH_VARIABLE",
    "VariableHolder",
    "check_document",
    "json_path",
    "load_variables",
    "names_here",
    "read_json",
    "save_variables",
    "short_error",
    "variables_layout",
    "write_json",
]


def state_tree(program: VariableHolder) -> JsonDict:
    """``{module name: {variable path: JSON state}}`` of every variable of `program`.

    The path is the variable's place in its module (`variables_layout`'s ``path``);
    the state is the variable's whole JSON (trainable fields and bookkeeping).
    """
    tree: JsonDict = {}
    for entry in variables_layout(program.modules):
        variable = program.get_variable(entry["variable"])
        tree.setdefault(entry["module"], {})[entry["path"]] = variable.get_json()
    return tree


def set_state_tree(program: VariableHolder, tree: Any) -> None:
    """Load a `state_tree` back into `program`, each variable found by its path.

    Raises:
        SerializationError: a tree that is not ``{module: {path: object}}``, a module
            or path the program lacks (named in the error, ``path`` holds it), or a
            state its variable refuses.
    """
    if not isinstance(tree, dict):
        raise SerializationError(
            f"a state tree must be an object keyed by module name, got {type(tree).__name__}"
        )
    places: dict[str, dict[str, str]] = {}
    for entry in variables_layout(program.modules):
        places.setdefault(entry["module"], {})[entry["path"]] = entry["variable"]
    for module, states in tree.items():
        if module not in places:
            raise SerializationError(
                f"state tree: program has no module {module!r} holding variables; "
                f"it has {sorted(places)}",
                path=str(module),
            )
        if not isinstance(states, dict):
            raise SerializationError(
                f"state tree: {module!r} must be an object keyed by variable path, "
                f"got {type(states).__name__}",
                path=str(module),
            )
        for place, state in states.items():
            where = f"{module}.{place}"
            if place not in places[module]:
                raise SerializationError(
                    f"state tree: module {module!r} has no variable {place!r}; "
                    f"it has {sorted(places[module])}",
                    path=where,
                )
            if not isinstance(state, dict):
                raise SerializationError(
                    f"state tree: {where} must be a variable's JSON object, "
                    f"got {type(state).__name__}",
                    path=where,
                )
            try:
                program.get_variable(places[module][place]).load_json(state)
            except Exception as error:
                reason = short_error(error)
                raise SerializationError(
                    f"state tree: {where}: {reason}", path=where, reason=reason
                ) from error
