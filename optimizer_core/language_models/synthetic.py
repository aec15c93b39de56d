"""Deterministic stand-ins for model output, shared by the fakes and the scripted server.

`hashed_bag_of_words` is the embedding of `FakeEmbeddingModel` and of the
scripted server's ``/v1/embeddings``; `schema_filler` is the default answer of
`FakeLanguageModel` and of the scripted server's ``/v1/chat/completions``.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

_WORD = re.compile(r"\w+")
_MAX_DEPTH = 32


def hashed_bag_of_words(text: str, dim: int) -> list[float]:
    """Embed a text as its lowercased words hashed into ``dim`` buckets, L2-normalised.

    Texts that share words get a higher cosine similarity; identical texts get
    identical vectors, in every process (the hash is blake2b, not ``hash()``).
    A text without words is embedded as the single token ``""`` so the vector
    is never zero.

    Args:
        text: the text to embed.
        dim: the number of buckets (vector length), >= 1.

    Example:
        ```python
        a = hashed_bag_of_words("the cat sat", 64)
        b = hashed_bag_of_words("a cat sat down", 64)
        ```
    """
    if dim < 1:
        raise ValueError(f"`dim` must be >= 1, got {dim}")
    vector = [0.0] * dim
    words = _WORD.findall(text.lower()) or [""]
    for word in words:
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        vector[int.from_bytes(digest, "little") % dim] += 1.0
    norm = math.sqrt(sum(value * value for value in vector))
    return [value / norm for value in vector]


def schema_filler(schema: dict[str, Any]) -> Any:
    """Build the simplest value that satisfies a JSON schema.

    Strings are ``""``, numbers ``0`` (or the schema's minimum), booleans
    ``false``, arrays ``[]`` (or ``minItems`` filled items), enums their first
    value, ``const`` its value; objects get every property, recursively;
    ``$ref`` into ``$defs`` / ``definitions`` is resolved; for ``anyOf`` /
    ``oneOf`` the first non-null branch is used.

    Args:
        schema: a JSON schema, e.g. a pydantic model's ``model_json_schema()``.

    Returns:
        A JSON value valid for the schema (a dict for an object schema).

    Example:
        ```python
        schema_filler({"type": "object", "properties": {"answer": {"type": "string"}}})
        # {"answer": ""}
        ```
    """
    return _fill(schema, schema, 0)


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#/"):
        return {}
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    return node if isinstance(node, dict) else {}


def _is_null_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


def _fill(schema: Any, root: dict[str, Any], depth: int) -> Any:
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return None
    if "$ref" in schema:
        return _fill(_resolve(str(schema["$ref"]), root), root, depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            non_null = [
                b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")
            ]
            return _fill((non_null or branches)[0], root, depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged: dict[str, Any] = {}
        for branch in schema["allOf"]:
            value = _fill(branch, root, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
            elif not merged:
                return value
        return merged
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        if "properties" in schema:
            kind = "object"
        elif "items" in schema:
            kind = "array"
        elif "default" in schema:
            return schema["default"]
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: _fill(sub, root, depth + 1) for name, sub in properties.items()}
    if kind == "array":
        count = int(schema.get("minItems", 0) or 0)
        return [_fill(schema.get("items", {}), root, depth + 1) for _ in range(count)]
    if kind == "string":
        return "x" * int(schema.get("minLength", 0) or 0)
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        if isinstance(low, int | float) and low > 0:
            value = low if "minimum" in schema else low + 1
            return math.ceil(value) if kind == "integer" else value
        return 0
    if kind == "boolean":
        return False
    return None
