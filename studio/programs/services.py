"""Program operations: validation with field paths, immutable versions, diff, import / export.

A version's document is `optimizer_core.Program.to_json()`. Documents come from
users and name the classes to rebuild, so the studio rebuilds every document,
stored or received, in the web process and in the worker, through one function,
`load_program`, always in the engine's safe mode: a name resolves only by an
exact lookup among registered objects (optimizer_core's own classes, and what
`register_synalinks_serializable` registered), and only where its kind belongs
(a module where a module goes...). Every name is checked before anything is
built, and a refusal names its field path and the name. A DataModel's ``class``
hint is dropped unless it is an ``optimizer_core`` class (the model is then
rebuilt from its schema), and a language model may not name a server-side
``cache_dir``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max

import optimizer_core
from optimizer_core import language_models
from optimizer_core import modules as modules_family
from optimizer_core.modules.serialization import deserialize_data_model
from optimizer_core.programs.program import FORMAT_VERSION
from optimizer_core.saving import RefusedObjectError, locate, refused_names, safe_mode_scope
from studio.programs.models import Program, ProgramVersion

JsonDict = dict[str, Any]
DOCUMENT_KIND = "optimizer_core.program"
_TRUSTED_PREFIX = "optimizer_core."
_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


@dataclass(frozen=True)
class FieldError:
    """One problem in a document: a dotted / indexed ``path`` and a ``message``."""

    path: str
    message: str

    def as_json(self) -> JsonDict:
        return {"path": self.path, "message": self.message}


class DocumentInvalid(ValueError):
    """A program document that does not deserialise; ``errors`` locate each problem."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(f"{e.path or '<document>'}: {e.message}" for e in errors))
        self.errors = errors


class ProgramConflict(ValueError):
    """A request that clashes with stored state (a taken name); ``field`` names it."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


# --------------------------------------------------------------------------- validation


def _short(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text if len(text) <= 500 else text[:497] + "..."


def _refused_objects(document: JsonDict) -> list[FieldError]:
    """Serialised objects whose names the engine's registry does not hold (nothing is built)."""
    return [
        FieldError(error.path, error.reason)
        for section in ("program", "compile_config")
        for error in refused_names(document.get(section), section)
    ]


def _refusal(error: RefusedObjectError, root: Any, root_path: str) -> FieldError:
    """A refusal raised while building `root` (at `root_path`), located in it when possible."""
    if error.path:
        return FieldError(error.path, error.reason)
    where = locate(root, error.config)
    if where is None:
        return FieldError(root_path, error.reason)
    return FieldError(f"{root_path}.{where}" if where else root_path, error.reason)


def _strip_class_hints(node: Any) -> None:
    """Drop DataModel ``class`` import hints that point outside optimizer_core (in place)."""
    if isinstance(node, dict):
        hint = node.get("class")
        if "schema" in node and isinstance(hint, str) and not hint.startswith(_TRUSTED_PREFIX):
            node["class"] = ""
        for value in node.values():
            _strip_class_hints(value)
    elif isinstance(node, list):
        for value in node:
            _strip_class_hints(value)


def sanitize_document(document: JsonDict) -> JsonDict:
    """A copy of a document that `Program.from_json` can load without importing user paths."""
    cleaned = copy.deepcopy(document)
    _strip_class_hints(cleaned)
    return cleaned


def _check_language_model(config: Any, path: str) -> list[FieldError]:
    if not isinstance(config, dict):
        return [FieldError(path, "expected a serialised language model object")]
    inner = config.get("config")
    if isinstance(inner, dict) and inner.get("cache_dir") not in (None, ""):
        return [
            FieldError(f"{path}.config.cache_dir", "a server-side cache_dir cannot be set here")
        ]
    try:
        language_models.deserialize(config)
    except RefusedObjectError as error:
        return [_refusal(error, config, path)]
    except Exception as error:  # any failure of user input is a field error
        culprit = _culprit(error, inner)
        return [FieldError(f"{path}.config.{culprit}" if culprit else path, _short(error))]
    return []


def _culprit(error: BaseException, config: Any) -> str:
    """The config key an error message names in backticks or quotes, if any."""
    if not isinstance(config, dict):
        return ""
    message = str(error)
    for name in _BACKTICKED.findall(message):
        if name in config:
            return name
    for key in config:
        if f"'{key}'" in message or f'"{key}"' in message:
            return str(key)
    return ""


def _check_module(entry: Any, path: str) -> list[FieldError]:
    if not isinstance(entry, dict):
        return [FieldError(path, "expected an object {name, module, inbound}")]
    errors: list[FieldError] = []
    if not isinstance(entry.get("name"), str) or not entry.get("name"):
        errors.append(FieldError(f"{path}.name", "a module needs a non-empty name"))
    inbound = entry.get("inbound", [])
    if not isinstance(inbound, list) or not all(isinstance(n, str) for n in inbound):
        errors.append(FieldError(f"{path}.inbound", "expected a list of module names"))
    module = entry.get("module")
    module_path = f"{path}.module"
    if not isinstance(module, dict):
        return [*errors, FieldError(module_path, "expected a serialised module object")]
    class_name = module.get("class_name")
    if not isinstance(class_name, str) or not class_name:
        return [*errors, FieldError(f"{module_path}.class_name", "missing module class name")]
    known = class_name in modules_family.ALL_OBJECTS
    if not known and not isinstance(module.get("registered_name"), str):
        return [
            *errors,
            FieldError(
                f"{module_path}.class_name",
                f"unknown module class {class_name!r}; known: {sorted(modules_family.ALL_OBJECTS)}",
            ),
        ]
    config = module.get("config")
    config_path = f"{module_path}.config"
    if not isinstance(config, dict):
        return [*errors, FieldError(config_path, "expected an object of constructor arguments")]
    part_errors: list[FieldError] = []
    if "data_model" in config:
        try:
            deserialize_data_model(config["data_model"])
        except Exception as error:  # user input
            part_errors.append(FieldError(f"{config_path}.data_model", _short(error)))
    if "language_model" in config:
        part_errors.extend(
            _check_language_model(config["language_model"], f"{config_path}.language_model")
        )
    if part_errors:
        return [*errors, *part_errors]
    try:
        modules_family.deserialize(module)
    except RefusedObjectError as error:
        errors.append(_refusal(error, module, module_path))
    except Exception as error:  # user input
        culprit = _culprit(error, config)
        errors.append(
            FieldError(f"{config_path}.{culprit}" if culprit else module_path, _short(error))
        )
    return errors


def _variable_errors(error: BaseException, variables: Any) -> list[FieldError] | None:
    message = str(error)
    match = re.search(r"has no variable\(s\) \[(.*?)\]", message)
    if match:
        names = [n.strip().strip("'\"") for n in match.group(1).split(",") if n.strip()]
        return [
            FieldError(f"variables.{name}", "no module of the program has this variable")
            for name in names
        ]
    match = re.match(r"variable '([^']+)': (.*)", message, re.S)
    if match:
        return [FieldError(f"variables.{match.group(1)}", match.group(2))]
    return None


def validate_document(document: Any) -> list[FieldError]:
    """Every problem that stops `optimizer_core.Program.from_json` loading a document.

    Everything runs in safe mode, and the names are checked before any object
    is built: a document that names an unregistered object builds nothing.

    Returns:
        Errors with paths such as ``program.modules[1].module.config.data_model``;
        empty when the document loads.
    """
    with safe_mode_scope(True):
        return _validate(document)


def _validate(document: Any) -> list[FieldError]:
    if not isinstance(document, dict):
        return [FieldError("", "the document must be a JSON object (Program.to_json())")]
    errors: list[FieldError] = []
    if document.get("kind") != DOCUMENT_KIND:
        errors.append(
            FieldError("kind", f"expected {DOCUMENT_KIND!r}, got {document.get('kind')!r}")
        )
    version = document.get("format_version", FORMAT_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version > FORMAT_VERSION:
        errors.append(
            FieldError("format_version", f"expected an int <= {FORMAT_VERSION}, got {version!r}")
        )
    if errors:
        return errors
    errors.extend(_refused_objects(document))
    if errors:
        return errors
    program = document.get("program")
    if not isinstance(program, dict):
        return [FieldError("program", "expected the program's architecture object")]
    entries = program.get("modules")
    if not isinstance(entries, list) or not entries:
        return [FieldError("program.modules", "expected a non-empty list of modules")]
    cleaned = sanitize_document(document)
    seen: set[str] = set()
    for index, entry in enumerate(cleaned["program"]["modules"]):
        path = f"program.modules[{index}]"
        errors.extend(_check_module(entry, path))
        if not isinstance(entry, dict):
            continue
        inbound = entry.get("inbound", [])
        if isinstance(inbound, list):
            for position, name in enumerate(inbound):
                if isinstance(name, str) and name not in seen:
                    errors.append(
                        FieldError(
                            f"{path}.inbound[{position}]",
                            f"{name!r} is not a module defined before this one",
                        )
                    )
        name = entry.get("name")
        if isinstance(name, str):
            if name in seen:
                errors.append(FieldError(f"{path}.name", f"duplicate module name {name!r}"))
            seen.add(name)
    for key in ("inputs", "outputs"):
        names = program.get(key)
        if not isinstance(names, list) or not names:
            errors.append(FieldError(f"program.{key}", "expected a non-empty list of module names"))
            continue
        for position, name in enumerate(names):
            if name not in seen:
                errors.append(FieldError(f"program.{key}[{position}]", f"unknown module {name!r}"))
    if errors:
        return errors
    # Architecture and variables first, then the compile config, so an error is
    # pinned on the part that caused it.
    try:
        optimizer_core.Program.from_json(
            {**cleaned, "compile_config": None, "optimizer_state": None}, safe_mode=True
        )
    except RefusedObjectError as error:
        return [_refusal(error, cleaned, "")]
    except Exception as error:  # user input: every failure becomes a located error
        located = _variable_errors(error, document.get("variables"))
        return located or [FieldError("program", _short(error))]
    if cleaned.get("compile_config") or cleaned.get("optimizer_state"):
        try:
            optimizer_core.Program.from_json(cleaned, safe_mode=True)
        except RefusedObjectError as error:
            return [_refusal(error, cleaned, "")]
        except Exception as error:  # user input
            part = "compile_config" if cleaned.get("compile_config") else "optimizer_state"
            return [FieldError(part, _short(error))]
    return []


def load_program(document: JsonDict) -> optimizer_core.Program:
    """Rebuild a stored (or user-given) document as a Program, safely.

    The one way the studio turns a document into objects, in the web process
    (validate, create, import, try, compare) and in the worker (training): the
    document is validated (names checked before anything is built), then
    rebuilt in safe mode. The studio never turns safe mode off.

    Raises:
        DocumentInvalid: the document does not validate; nothing of it ran.
    """
    errors = validate_document(document)
    if errors:
        raise DocumentInvalid(errors)
    with safe_mode_scope(True):
        return optimizer_core.Program.from_json(sanitize_document(document), safe_mode=True)


def _checked(document: Any) -> JsonDict:
    errors = validate_document(document)
    if errors:
        raise DocumentInvalid(errors)
    return sanitize_document(document)


def _check_layout(layout: Any) -> JsonDict:
    if layout is None:
        return {}
    if not isinstance(layout, dict):
        raise DocumentInvalid([FieldError("layout", "expected an object (node positions)")])
    return layout


# --------------------------------------------------------------------------- programs and versions


def create_program(
    *,
    owner: Any,
    name: str,
    document: JsonDict,
    layout: JsonDict | None = None,
    description: str = "",
    message: str = "",
) -> Program:
    """Create a program and its version 1 from a valid document.

    Raises:
        DocumentInvalid: the document (or layout) does not validate; nothing is stored.
        ProgramConflict: the owner already has a program with this name.
    """
    clean = _checked(document)
    clean_layout = _check_layout(layout)
    with transaction.atomic():
        if Program.objects.filter(owner=owner, name=name).exists():
            raise ProgramConflict(f"you already have a program named {name!r}", field="name")
        program = Program.objects.create(owner=owner, name=name, description=description)
        ProgramVersion.objects.create(
            program=program, number=1, document=clean, layout=clean_layout, message=message
        )
    return program


def create_version(
    program: Program, *, document: JsonDict, layout: JsonDict | None = None, message: str = ""
) -> ProgramVersion:
    """Add version n+1 to a program (versions are never changed once written).

    Raises:
        DocumentInvalid: the document (or layout) does not validate; nothing is stored.
    """
    clean = _checked(document)
    clean_layout = _check_layout(layout)
    with transaction.atomic():
        # Lock the program row so two saves cannot take the same number.
        locked = Program.objects.select_for_update().get(pk=program.pk)
        latest = locked.versions.aggregate(latest=Max("number"))["latest"] or 0
        version = ProgramVersion.objects.create(
            program=locked,
            number=latest + 1,
            document=clean,
            layout=clean_layout,
            message=message,
        )
        locked.save(update_fields=["updated_at"])
    return version


def update_program(
    program: Program, *, name: str | None = None, description: str | None = None
) -> Program:
    """Rename / redescribe a program (its versions stay as they are).

    Raises:
        ProgramConflict: the new name is taken.
    """
    with transaction.atomic():
        if name is not None and name != program.name:
            if (
                Program.objects.filter(owner=program.owner, name=name)
                .exclude(pk=program.pk)
                .exists()
            ):
                raise ProgramConflict(f"you already have a program named {name!r}", field="name")
            program.name = name
        if description is not None:
            program.description = description
        program.save()
    return program


def delete_program(program: Program) -> None:
    """Delete a program and its versions.

    Raises:
        django.db.models.ProtectedError: a run still points at one of its versions.
    """
    with transaction.atomic():
        program.delete()


def _unique_name(owner: Any, wanted: str) -> str:
    base = (wanted or "Imported program").strip()[:190] or "Imported program"
    name, counter = base, 2
    while Program.objects.filter(owner=owner, name=name).exists():
        name = f"{base} ({counter})"
        counter += 1
    return name


def import_program(*, owner: Any, payload: Any, name: str = "", description: str = "") -> Program:
    """Create a program from an exported document.

    Args:
        payload: a `Program.to_json()` document, or ``{"document": ..., "layout": ...,
            "name": ..., "description": ...}``.
        name: the new program's name; defaults to the payload's, then the
            document's; a number is appended when the name is taken.

    Raises:
        DocumentInvalid: the payload holds no valid document.
    """
    if not isinstance(payload, dict):
        raise DocumentInvalid([FieldError("", "expected a JSON object")])
    layout: Any = {}
    document: Any = payload
    if "document" in payload and "kind" not in payload:
        document = payload["document"]
        layout = payload.get("layout") or {}
        name = name or str(payload.get("name") or "")
        description = description or str(payload.get("description") or "")
    if isinstance(document, dict) and isinstance(document.get("program"), dict):
        name = name or str(document["program"].get("name") or "")
    with transaction.atomic():
        return create_program(
            owner=owner,
            name=_unique_name(owner, name),
            document=document,
            layout=layout,
            description=description,
            message="imported",
        )


def export_filename(version: ProgramVersion) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", version.program.name).strip("-") or "program"
    return f"{slug}-v{version.number}.json"


# --------------------------------------------------------------------------- diff


def _keyed_by_name(items: list[Any]) -> dict[str, Any] | None:
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    keyed = {i["name"]: i for i in items}
    return keyed if len(keyed) == len(items) else None


def diff_json(old: Any, new: Any, path: str = "") -> list[JsonDict]:
    """A recursive diff: ``[{path, op, old, new}]`` with op ``changed``, ``added`` or ``removed``.

    Objects are compared key by key, lists of named objects (modules) by name,
    other lists by position.
    """
    if isinstance(old, dict) and isinstance(new, dict):
        changes: list[JsonDict] = []
        for key in old.keys() | new.keys():
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                changes.append({"path": sub, "op": "removed", "old": old[key], "new": None})
            elif key not in old:
                changes.append({"path": sub, "op": "added", "old": None, "new": new[key]})
            else:
                changes.extend(diff_json(old[key], new[key], sub))
        return sorted(changes, key=lambda c: c["path"])
    if isinstance(old, list) and isinstance(new, list):
        old_named, new_named = _keyed_by_name(old), _keyed_by_name(new)
        if old_named is not None and new_named is not None:
            changes = []
            for key in [*old_named, *(k for k in new_named if k not in old_named)]:
                sub = f"{path}[name={key}]"
                if key not in new_named:
                    changes.append(
                        {"path": sub, "op": "removed", "old": old_named[key], "new": None}
                    )
                elif key not in old_named:
                    changes.append({"path": sub, "op": "added", "old": None, "new": new_named[key]})
                else:
                    changes.extend(diff_json(old_named[key], new_named[key], sub))
            return changes
        changes = []
        for index in range(max(len(old), len(new))):
            sub = f"{path}[{index}]"
            if index >= len(new):
                changes.append({"path": sub, "op": "removed", "old": old[index], "new": None})
            elif index >= len(old):
                changes.append({"path": sub, "op": "added", "old": None, "new": new[index]})
            else:
                changes.extend(diff_json(old[index], new[index], sub))
        return changes
    if old == new and type(old) is type(new):
        return []
    return [{"path": path, "op": "changed", "old": old, "new": new}]


def diff_versions(old: ProgramVersion, new: ProgramVersion) -> JsonDict:
    """The changes from one version's document to another's, with a summary.

    The summary lists modules added / removed / changed, and the variables whose
    ``instructions`` or ``examples`` changed.
    """
    changes = diff_json(old.document, new.document)
    old_modules = _keyed_by_name(old.document.get("program", {}).get("modules", [])) or {}
    new_modules = _keyed_by_name(new.document.get("program", {}).get("modules", [])) or {}
    old_vars = old.document.get("variables") or {}
    new_vars = new.document.get("variables") or {}

    def changed_field(field: str) -> list[str]:
        return sorted(
            name
            for name in old_vars.keys() | new_vars.keys()
            if (old_vars.get(name) or {}).get(field) != (new_vars.get(name) or {}).get(field)
        )

    summary = {
        "modules_added": sorted(new_modules.keys() - old_modules.keys()),
        "modules_removed": sorted(old_modules.keys() - new_modules.keys()),
        "modules_changed": sorted(
            n for n in old_modules.keys() & new_modules.keys() if old_modules[n] != new_modules[n]
        ),
        "instructions_changed": changed_field("instructions"),
        "examples_changed": changed_field("examples"),
    }
    return {"from": old.number, "to": new.number, "summary": summary, "changes": changes}


class TryError(ValueError):
    """A try-it request that cannot run; ``field`` names the culprit."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


def try_program(*, document: JsonDict, language_model: Any, inputs: Any) -> JsonDict:
    """Run a program once on one input and report what every module saw and produced.

    Args:
        document: the program (a stored version's document, or the editor's unsaved one).
        language_model: the model every module calls (the chosen provider's).
        inputs: the input JSON (one object, or a list for programs with several inputs).

    Returns:
        ``{"output", "trace": [{module, inputs, outputs, error}], "latency_s", "usage"}``.

    Raises:
        DocumentInvalid: the document does not validate.
        TryError: the input does not fit the program.
    """
    import asyncio
    import time

    from optimizer_core.exceptions import DataError
    from optimizer_core.modules.module import TRACE

    program = load_program(document)
    for module in program.modules:
        if getattr(module, "language_model", None) is not None:
            module.language_model = language_model
    try:
        program.coerce_inputs(inputs, where="input")
    except DataError as error:
        raise TryError(str(error), field="input") from None

    async def run() -> tuple[Any, list[JsonDict]]:
        trace: list[JsonDict] = []
        TRACE.set(trace)
        return await program(inputs), trace

    started = time.perf_counter()
    output, trace = asyncio.run(run())
    outputs = output if isinstance(output, list) else [output]
    return {
        "output": [o.get_json() if o is not None else None for o in outputs]
        if isinstance(output, list)
        else (output.get_json() if output is not None else None),
        "trace": [
            {k: entry.get(k) for k in ("module", "inputs", "outputs", "error")} for entry in trace
        ],
        "latency_s": time.perf_counter() - started,
        "usage": language_model.usage.snapshot(),
    }
