"""Data models: the typed JSON that flows through a program.

A `DataModel` is a pydantic v2 model. Its JSON schema is what a language model
must fill, what the studio's editor shows as a node's ports, and what dataset
rows are validated against.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pydantic
from pydantic import ConfigDict

from optimizer_core import model_algebra

JsonDict = dict[str, Any]


class DataModel(pydantic.BaseModel):
    """Base class for the inputs and outputs of a program.

    Example:
        ```python
        class Query(DataModel):
            query: str = Field(description="The user's question")
        ```
    """

    model_config = ConfigDict(extra="forbid")

    def get(self, key: str, default: Any = None) -> Any:
        """Read one field, or `default` when the model has no such field."""
        return self.get_json().get(key, default)

    def get_json(self) -> JsonDict:
        """The model as a plain JSON-compatible dict."""
        return self.model_dump(mode="json")

    @classmethod
    def get_schema(cls) -> JsonDict:
        """The JSON schema a language model has to fill (computed once per class; a copy)."""
        cached = cls.__dict__.get("_schema_cache")
        if cached is None:
            cached = cls.model_json_schema()
            # A class attribute, not a pydantic field: ClassVar-like storage on the class itself.
            type.__setattr__(cls, "_schema_cache", cached)
        return copy.deepcopy(cached)

    def pretty_json(self) -> str:
        return json.dumps(self.get_json(), indent=2, ensure_ascii=False)

    def __getitem__(self, key: str) -> Any:
        """``answer["answer"]``: a field's JSON value (KeyError when there is no such field)."""
        data = self.get_json()
        if key not in data:
            raise KeyError(f"{type(self).__name__} has no field {key!r}; it has {list(data)}")
        return data[key]

    def keys(self) -> list[str]:
        """The field names, in order."""
        return list(type(self).model_fields)

    # The operators of the reference library's data models (see `model_algebra`):
    # ``a + b`` concatenates (None is an error), ``a & b`` concatenates or gives None
    # when either is None, ``a | b`` is the first that is not None, ``a ^ b`` the only
    # one that is not None (None when both are), ``~a`` is None.

    def __add__(self, other: Any) -> DataModel:
        if other is None:
            raise ValueError(
                f"cannot concatenate {type(self).__name__} with None: `+` needs both "
                "(use `&` to get None when either is None)"
            )
        if not isinstance(other, DataModel):
            return NotImplemented
        return model_algebra.concat_values([self, other], base=DataModel)

    def __radd__(self, other: Any) -> DataModel:
        if other is None:
            raise ValueError(
                f"cannot concatenate None with {type(self).__name__}: `+` needs both "
                "(use `&` to get None when either is None)"
            )
        return NotImplemented

    def __and__(self, other: Any) -> DataModel | None:
        if other is None:
            return None
        if not isinstance(other, DataModel):
            return NotImplemented
        return model_algebra.concat_values([self, other], base=DataModel)

    def __rand__(self, other: Any) -> DataModel | None:
        return None if other is None else NotImplemented

    def __or__(self, other: Any) -> DataModel:
        if other is None or isinstance(other, DataModel):
            return self
        return NotImplemented

    def __ror__(self, other: Any) -> DataModel:
        return self if other is None else NotImplemented

    def __xor__(self, other: Any) -> DataModel | None:
        if other is None:
            return self
        if not isinstance(other, DataModel):
            return NotImplemented
        return None

    def __rxor__(self, other: Any) -> DataModel | None:
        return self if other is None else NotImplemented

    def __invert__(self) -> None:
        return None


def to_json(value: Any) -> JsonDict | None:
    """Turn a DataModel, a pydantic model, a dict or None into a JSON dict (or None)."""
    if value is None:
        return None
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return value
    raise TypeError(f"expected a DataModel, a dict or None, got {type(value).__name__}")


_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


def _all_subclasses(cls: type[DataModel]) -> list[type[DataModel]]:
    found: list[type[DataModel]] = []
    stack = list(cls.__subclasses__())
    while stack:
        sub = stack.pop()
        found.append(sub)
        stack.extend(sub.__subclasses__())
    return found


def known_data_model(path: str, schema: JsonDict) -> type[DataModel] | None:
    """The DataModel class saved as `path` (``module.qualname``), if this process has it.

    Only a registered class or a DataModel subclass already defined here (a
    dictionary lookup and a walk of `DataModel`'s subclasses) is considered, and
    only when its schema is `schema`: nothing is imported for a saved path.
    """
    from optimizer_core.saving.object_registry import lookup_registered

    if "<" in path:
        return None  # a class defined in a function has no stable name
    registered = lookup_registered(path)
    candidates = [registered] if registered is not None else []
    candidates += [
        c for c in _all_subclasses(DataModel) if f"{c.__module__}.{c.__qualname__}" == path
    ]
    for candidate in candidates:
        if (
            isinstance(candidate, type)
            and issubclass(candidate, DataModel)
            and f"{candidate.__module__}.{candidate.__qualname__}" == path
            and candidate.model_json_schema() == schema
        ):
            return candidate
    return None


#: Schema keys that, in one format or another, name code to import or call (class hints).
#: A DataModel schema is data: it may not carry any of them.
_CODE_HINT_KEYS = frozenset(
    {
        "class",
        "class_name",
        "registered_name",
        "module",
        "$class",
        "_target_",
        "x-class",
        "x-python-class",
        "x-python-type",
        "python_class",
        "python_type",
        "py_class",
        "py_type",
    }
)


def _code_hint(key: str) -> bool:
    lowered = key.lower()
    return (
        lowered in _CODE_HINT_KEYS
        or lowered.startswith(("__", "py/", "!!python"))
        or "python/" in lowered
    )


def data_model_from_schema(schema: JsonDict, *, name: str | None = None) -> type[DataModel]:
    """Build a DataModel class from a JSON schema (the inverse of `get_schema`).

    Supports the JSON-schema subset pydantic emits and the studio's editor writes:
    object properties with types string / integer / number / boolean / null,
    arrays (with ``items``), nested objects, ``$ref`` into ``$defs``, ``enum``,
    ``anyOf`` (unions, optional fields), ``description``, ``default``, ``required`` and a
    string's ``minLength`` / ``maxLength``.

    The schema is data, never code: a key that hints at a class to import
    (``class``, ``__class__``, ``py/object``, ``x-python-class``...) and a field
    name starting with ``_`` are refused.

    Raises:
        ValueError: when the schema is not an object schema or carries a class
            hint, naming the offending path.
    """
    if not isinstance(schema, dict):
        raise ValueError("schema must be a JSON object")
    raw_defs = schema.get("$defs", {})
    if not isinstance(raw_defs, dict):
        raise ValueError("$.$defs: expected an object")
    defs: JsonDict = dict(raw_defs)
    built: dict[str, type[DataModel]] = {}
    building: set[str] = set()

    def check_keys(node: JsonDict, path: str) -> None:
        for key in node:
            if not isinstance(key, str) or _code_hint(key):
                raise ValueError(f"{path}: key {key!r} is a class hint; a schema may not name code")

    def resolve(node: JsonDict, path: str) -> Any:
        import typing

        check_keys(node, path)
        if "$ref" in node:
            ref = str(node["$ref"]).rsplit("/", 1)[-1]
            if ref not in defs or not isinstance(defs[ref], dict):
                raise ValueError(f"{path}: unknown $ref {node['$ref']!r}")
            if ref not in built:
                if ref in building:
                    raise ValueError(f"{path}: recursive $ref {node['$ref']!r} is not supported")
                building.add(ref)
                built[ref] = build_object(defs[ref], ref, f"{path}->{ref}")
            return built[ref]
        if "enum" in node:
            values = tuple(node["enum"])
            if not values:
                raise ValueError(f"{path}: empty enum")
            return typing.Literal[values]
        if "const" in node:
            return typing.Literal[(node["const"],)]
        for union_key in ("anyOf", "oneOf"):
            if union_key in node:
                options = [
                    resolve(option, f"{path}|{i}") for i, option in enumerate(node[union_key])
                ]
                union: Any = options[0]
                for option in options[1:]:
                    union = union | option
                return union
        kind = node.get("type")
        if isinstance(kind, list):
            parts = [resolve({**node, "type": item}, path) for item in kind]
            combined: Any = parts[0]
            for part in parts[1:]:
                combined = combined | part
            return combined
        if kind == "array":
            items = node.get("items")
            item_type: Any = resolve(items, f"{path}[]") if isinstance(items, dict) else Any
            return list[item_type]
        if kind == "object":
            if "properties" in node:
                title = str(node.get("title") or path.rsplit(".", 1)[-1].title() or "Object")
                return build_object(node, title, path)
            return dict[str, Any]
        if kind in _JSON_TYPES:
            return _JSON_TYPES[kind]
        if kind is None:
            return Any
        raise ValueError(f"{path}: unsupported JSON type {kind!r}")

    def build_object(node: JsonDict, title: str, path: str) -> type[DataModel]:
        check_keys(node, path)
        if node.get("type", "object") != "object" or not isinstance(node.get("properties"), dict):
            raise ValueError(f"{path}: expected an object schema with 'properties'")
        required_list = node.get("required", [])
        if not isinstance(required_list, list):
            raise ValueError(f"{path}.required: expected a list of field names")
        required = {key for key in required_list if isinstance(key, str)}
        fields: dict[str, Any] = {}
        for key, prop in node["properties"].items():
            if not isinstance(key, str) or not key or key.startswith("_") or key == "model_config":
                # create_model reads ``__base__``, ``__module__``, ``__validators__``... and
                # pydantic reads ``model_config`` from the class body: a field name may
                # never reach them.
                raise ValueError(f"{path}: field name {key!r} is reserved")
            if not isinstance(prop, dict):
                raise ValueError(f"{path}.{key}: property schema must be an object")
            annotation = resolve(prop, f"{path}.{key}")
            default: Any = ... if key in required else prop.get("default", None)
            if key not in required and "default" not in prop:
                annotation = annotation | None
            fields[key] = (
                annotation,
                pydantic.Field(  # type: ignore[call-overload]  # bounds: min/max_length
                    default=default,
                    description=prop.get("description"),
                    **_string_bounds(prop, f"{path}.{key}"),
                ),
            )
        description = node.get("description")
        model: type[DataModel] = pydantic.create_model(
            _identifier(title),
            __base__=DataModel,
            __doc__=description if isinstance(description, str) else None,
            **fields,
        )
        return model

    return build_object(schema, name or str(schema.get("title") or "DataModel"), "$")


def _string_bounds(prop: JsonDict, path: str) -> dict[str, int]:
    """A string property's ``minLength`` / ``maxLength``, as pydantic's ``min_length`` and
    ``max_length``.

    Kept so that a schema's length cap survives the round trip: a grammar-constrained
    local model builds its grammar from the schema, and a cap is what stops a small
    model from writing a paragraph where a word is asked for.
    """
    if prop.get("type") != "string":
        return {}
    bounds: dict[str, int] = {}
    for key, argument in (("minLength", "min_length"), ("maxLength", "max_length")):
        value = prop.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{path}.{key}: expected an integer >= 0, got {value!r}")
        bounds[argument] = value
    return bounds


def _identifier(title: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in title)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"M_{cleaned}"


def schemas_equal(a: type[DataModel], b: type[DataModel]) -> bool:
    """Whether two DataModels describe the same JSON (same schema)."""
    return a.model_json_schema() == b.model_json_schema()
