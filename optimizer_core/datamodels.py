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


def data_model_from_schema(schema: JsonDict, *, name: str | None = None) -> type[DataModel]:
    """Build a DataModel class from a JSON schema (the inverse of `get_schema`).

    Supports the JSON-schema subset pydantic emits and the studio's editor writes:
    object properties with types string / integer / number / boolean / null,
    arrays (with ``items``), nested objects, ``$ref`` into ``$defs``, ``enum``,
    ``anyOf`` (unions, optional fields), ``description``, ``default`` and ``required``.

    Raises:
        ValueError: when the schema is not an object schema, naming the offending path.
    """
    defs: JsonDict = dict(schema.get("$defs", {}))
    built: dict[str, type[DataModel]] = {}

    def resolve(node: JsonDict, path: str) -> Any:
        import typing

        if "$ref" in node:
            ref = str(node["$ref"]).rsplit("/", 1)[-1]
            if ref not in defs:
                raise ValueError(f"{path}: unknown $ref {node['$ref']!r}")
            if ref not in built:
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
        if node.get("type", "object") != "object" or not isinstance(node.get("properties"), dict):
            raise ValueError(f"{path}: expected an object schema with 'properties'")
        required = set(node.get("required", []))
        fields: dict[str, Any] = {}
        for key, prop in node["properties"].items():
            if not isinstance(prop, dict):
                raise ValueError(f"{path}.{key}: property schema must be an object")
            annotation = resolve(prop, f"{path}.{key}")
            default: Any = ... if key in required else prop.get("default", None)
            if key not in required and "default" not in prop:
                annotation = annotation | None
            fields[key] = (
                annotation,
                pydantic.Field(default=default, description=prop.get("description")),
            )
        model: type[DataModel] = pydantic.create_model(
            _identifier(title), __base__=DataModel, __doc__=node.get("description"), **fields
        )
        return model

    if not isinstance(schema, dict):
        raise ValueError("schema must be a JSON object")
    return build_object(schema, name or str(schema.get("title") or "DataModel"), "$")


def _identifier(title: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in title)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"M_{cleaned}"


def schemas_equal(a: type[DataModel], b: type[DataModel]) -> bool:
    """Whether two DataModels describe the same JSON (same schema)."""
    return a.model_json_schema() == b.model_json_schema()
