"""Program documents: validation with field paths, sanitising, and `load_program`.

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
``cache_dir``. Where the engine cannot rebuild a part, its error says where
(`SerializationError.path`); nothing here reads the engine's messages.
"""

from __future__ import annotations

import copy
from typing import Any

import optimizer_core
from optimizer_core import language_models
from optimizer_core import modules as modules_family
from optimizer_core.exceptions import SerializationError, join_path
from optimizer_core.modules.serialization import deserialize_data_model
from optimizer_core.programs.program import FORMAT_VERSION
from optimizer_core.saving import RefusedObjectError, locate, refused_names, safe_mode_scope
from studio.common.exceptions import FieldError
from studio.programs.exceptions import DocumentInvalid

JsonDict = dict[str, Any]
DOCUMENT_KIND = "optimizer_core.program"
_TRUSTED_PREFIX = "optimizer_core."


# --------------------------------------------------------------------------- validation


def _short(error: BaseException) -> str:
    return _short_text(str(error).strip() or type(error).__name__)


def _short_text(text: str) -> str:
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


def _module_configs(document: JsonDict) -> dict[str, JsonDict]:
    """Every module's config by name, the modules a Branch holds (its ``branches``) too."""
    found: dict[str, JsonDict] = {}

    def visit(serialized: Any) -> None:
        config = serialized.get("config") if isinstance(serialized, dict) else None
        if not isinstance(config, dict):
            return
        found[str(config.get("name"))] = config
        for inner in config.get("branches") or []:
            visit(inner)

    for entry in (document.get("program") or {}).get("modules") or []:
        if isinstance(entry, dict):
            visit(entry.get("module"))
            if isinstance(entry.get("module"), dict) and isinstance(
                entry["module"].get("config"), dict
            ):
                # a module entry is keyed by its entry name (the same, in documents we write)
                found[str(entry.get("name"))] = entry["module"]["config"]
    return found


def storable_document(trained: JsonDict, source: JsonDict) -> JsonDict:
    """A trained program's document as the studio stores it (checkpoints, trained documents).

    ``trained`` is `Program.to_json()` of a program the worker pointed at the run's
    provider. That provider's model (the bundled server's `LocalLanguageModel`, or a
    remote model with its address) is the run's, not the program's, and safe mode
    rightly refuses a local server in a document. So every module keeps the language
    model its ``source`` document named (none if it named none), and the document keeps
    the source's compile config; the variables and optimizer state are the trained
    ones. The compile config is the trained one (the run's reward, metrics and optimizer)
    unless it names what safe mode refuses (an optimizer or judge on the bundled
    server), then the source's. A stored document then loads through `load_program`
    like its version.
    """
    stored = copy.deepcopy(trained)
    originals = _module_configs(source)
    for name, config in _module_configs(stored).items():
        if "language_model" not in config:
            continue
        original = originals.get(name, {})
        if "language_model" in original:
            config["language_model"] = copy.deepcopy(original["language_model"])
        else:
            del config["language_model"]
    if any(error.path.startswith("compile_config") for error in validate_document(stored)):
        stored["compile_config"] = copy.deepcopy(source.get("compile_config"))
    return stored


def _wire_name(wire: Any) -> str | None:
    """The module a wire names: ``"name"``, or ``{"module": name, "output": i}`` for output
    ``i`` of a module with several (a Branch's slot per label); None for anything else."""
    if isinstance(wire, str):
        return wire
    if (
        isinstance(wire, dict)
        and set(wire) == {"module", "output"}
        and isinstance(wire["module"], str)
        and isinstance(wire["output"], int)
        and not isinstance(wire["output"], bool)
    ):
        return wire["module"]
    return None


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
    except SerializationError as error:  # it says where: config.<argument>
        return [FieldError(join_path(path, error.path), _short(error))]
    except Exception as error:  # any failure of user input is a field error
        return [FieldError(path, _short(error))]
    return []


def _check_module(entry: Any, path: str) -> list[FieldError]:
    if not isinstance(entry, dict):
        return [FieldError(path, "expected an object {name, module, inbound}")]
    errors: list[FieldError] = []
    if not isinstance(entry.get("name"), str) or not entry.get("name"):
        errors.append(FieldError(f"{path}.name", "a module needs a non-empty name"))
    inbound = entry.get("inbound", [])
    if not isinstance(inbound, list) or not all(_wire_name(n) is not None for n in inbound):
        errors.append(
            FieldError(
                f"{path}.inbound",
                'expected a list of module names or {"module": name, "output": index} objects',
            )
        )
    return [*errors, *_check_module_object(entry.get("module"), f"{path}.module")]


def _check_module_object(module: Any, module_path: str) -> list[FieldError]:
    """The problems of one serialised module, and of the modules its config holds (a
    Branch's ``branches``), each at its path."""
    errors: list[FieldError] = []
    if not isinstance(module, dict):
        return [FieldError(module_path, "expected a serialised module object")]
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
    held = config.get("branches")
    if isinstance(held, list):
        for position, inner in enumerate(held):
            if inner is not None:
                part_errors.extend(
                    _check_module_object(inner, f"{config_path}.branches[{position}]")
                )
    if part_errors:
        return [*errors, *part_errors]
    try:
        modules_family.deserialize(module)
    except RefusedObjectError as error:
        errors.append(_refusal(error, module, module_path))
    except SerializationError as error:  # it says where: config.<argument>, nested objects too
        errors.append(FieldError(join_path(module_path, error.path), _short(error)))
    except Exception as error:  # user input
        errors.append(FieldError(module_path, _short(error)))
    return errors


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
            for position, wire in enumerate(inbound):
                name = _wire_name(wire)
                if name is not None and name not in seen:
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
        for position, wire in enumerate(names):
            name = _wire_name(wire) if key == "outputs" else wire
            if not isinstance(name, str) or name not in seen:
                errors.append(
                    FieldError(f"program.{key}[{position}]", f"unknown module {name or wire!r}")
                )
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
    except SerializationError as error:  # located by the engine (variables.<name>...)
        if error.paths:
            return [FieldError(path, _short_text(error.reason)) for path in error.paths]
        return [FieldError("program", _short(error))]
    except Exception as error:  # user input: every failure becomes a located error
        return [FieldError("program", _short(error))]
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


def checked_document(document: Any) -> JsonDict:
    """The sanitised copy of a valid document, what a version stores.

    Raises:
        DocumentInvalid: the document does not validate.
    """
    errors = validate_document(document)
    if errors:
        raise DocumentInvalid(errors)
    return sanitize_document(document)
