"""How long an answer may be: the token bound of every request, and a grammar's string bounds.

A model that does not stop on its own (a 135M model repeating ``0.1.0.1.`` in its
"thinking", a provider whose sampler loops) writes until its context is full: minutes
per call on a small machine, a call's whole timeout before anyone learns it failed. So
every request carries ``max_tokens``, and when the caller sets none it comes from the
answer's schema: what the longest answer the schema allows needs (`answer_bound`).

The bound counts one token per character of the answer's JSON text. Tokenizers put
at least one character in a token for the text models write (ASCII prose, JSON
syntax), so an answer that fills every string to its ``maxLength`` still fits; a
character spread over several byte tokens (rare scripts, emoji) can make a full-length
answer longer, and then it is cut, and fails as a truncated answer that names the
bound. A string without ``maxLength`` counts `DEFAULT_STRING_LENGTH` characters
(`DEFAULT_ITEM_STRING_LENGTH` inside an array), an array without ``maxItems``
`DEFAULT_ITEMS` items, a value the schema leaves open (``{}``,
``additionalProperties``) `OPEN_VALUE_TOKENS`. No schema (free text): `TEXT_TOKENS`.

A grammar-constrained model (the bundled llama.cpp server) can also be held to those
defaults as it writes: `bounded_schema` adds them to the schema its grammar is built
from, so a runaway string closes at its bound and the answer still parses, where a
``max_tokens`` cut would leave half a JSON object. The schema the answer is validated
against keeps the caller's own constraints only.

Why characters and not a tokenizer: the engine talks to any provider through litellm
and knows none of their tokenizers; a bound that over-counts by 4x for English costs
nothing (a provider bills what is generated, not what is allowed), while one that
under-counts cuts valid answers.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

DEFAULT_STRING_LENGTH = 1000
"""Characters counted, and allowed by a grammar, for a string field without ``maxLength``."""

DEFAULT_ITEMS = 10
"""Items counted, and allowed by a grammar, for an array without ``maxItems``."""

DEFAULT_ITEM_STRING_LENGTH = DEFAULT_STRING_LENGTH // DEFAULT_ITEMS
"""Characters for a string without ``maxLength`` inside an array (a tenth of the free
string's length, in general): an open list of open strings (``list[str]``) counts about
as much as one open string."""

OPEN_VALUE_TOKENS = 256
"""Tokens counted for a value the schema does not describe (``{}``, ``additionalProperties``)."""

TEXT_TOKENS = 2048
"""The bound of a free-text answer (no schema)."""

REASONING_TOKENS = {"minimal": 1024, "low": 4096, "medium": 16384, "high": 32768}
"""Tokens allowed for a reasoning model's hidden reasoning, on top of its answer, per effort.

Providers count reasoning in the completion tokens ``max_tokens`` bounds (OpenAI's
``max_completion_tokens``, Anthropic's thinking budget, which litellm sets to 1,024 /
2,048 / 4,096 for low / medium / high and which must stay below ``max_tokens``). A
model that reasons unasked counts as ``"medium"``, OpenAI's default. The model's own
output limit, where litellm knows it, caps the sum."""

MAX_SCHEMA_TOKENS = 8192
"""The most a schema's bound may be: a wide schema (lists of long strings) counts far more than
an answer writes, and most providers refuse a ``max_tokens`` above their output limit."""

_FIELD_TOKENS = 8
"""A property's JSON syntax: quotes, colon, comma, and the whitespace a grammar allows."""
_NUMBER_TOKENS = 40
"""A number as llama.cpp's JSON grammar allows it: 16 digits, 16 decimals, an exponent."""
_MAX_DEPTH = 12


def answer_bound(
    schema: Mapping[str, Any] | None, *, string_length: int = DEFAULT_STRING_LENGTH
) -> int:
    """The tokens the longest answer ``schema`` allows needs (`TEXT_TOKENS` without a schema).

    Strings count their ``maxLength`` (else ``string_length``, a tenth of it inside an
    array) characters, one token each, arrays their ``maxItems`` (else `DEFAULT_ITEMS`)
    items; ``$ref`` into ``$defs`` is followed, ``anyOf`` / ``oneOf`` count their
    longest branch. At most `MAX_SCHEMA_TOKENS`.

    Example:
        ```python
        answer_bound({"type": "object", "properties": {"answer": {"type": "string",
                      "maxLength": 40}}})  # braces 2 + '"answer"' 8 + syntax 8 + 42 = 60
        ```
    """
    if schema is None:
        return TEXT_TOKENS
    return min(MAX_SCHEMA_TOKENS, _Walk(schema, string_length).tokens(schema, 0, False))


def bounded_schema(
    schema: Mapping[str, Any], *, string_length: int = DEFAULT_STRING_LENGTH
) -> dict[str, Any]:
    """A copy of ``schema`` whose every free string has a ``maxLength``, every array a ``maxItems``.

    The bounds are ``string_length`` (a tenth of it inside an array) and
    `DEFAULT_ITEMS`, the figures `answer_bound` counts with the same
    ``string_length``, so a grammar built from the copy writes answers within the
    bound. Strings with an ``enum``, a ``const``, a ``format`` or a ``pattern`` are
    left alone (their grammar has its own shape).
    """
    bounded: dict[str, Any] = copy.deepcopy(dict(schema))
    _bound_in_place(bounded, 0, False, string_length)
    return bounded


class _Walk:
    """`answer_bound`'s recursion, with ``$ref`` resolved against the root schema."""

    def __init__(self, root: Mapping[str, Any], string_length: int) -> None:
        self.root = root
        self.string_length = string_length

    def tokens(self, node: Any, depth: int, in_array: bool) -> int:
        if not isinstance(node, Mapping) or depth > _MAX_DEPTH:
            return OPEN_VALUE_TOKENS
        if "$ref" in node:
            # A definition is bounded where it is defined (`bounded_schema`), outside any array.
            return self.tokens(self._resolve(str(node["$ref"])), depth + 1, False)
        if "const" in node:
            return _json_length(node["const"])
        if isinstance(node.get("enum"), list) and node["enum"]:
            return max(_json_length(choice) for choice in node["enum"])
        branches = [b for key in ("anyOf", "oneOf") for b in node.get(key) or ()]
        if branches:
            return max(self.tokens(branch, depth + 1, in_array) for branch in branches)
        if node.get("allOf"):
            return sum(self.tokens(branch, depth + 1, in_array) for branch in node["allOf"])
        kind = node.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if len(kinds) > 1:
            return max(self.tokens({**node, "type": k}, depth, in_array) for k in kinds)
        kind = kinds[0]
        if kind == "string":
            length = node.get("maxLength")
            free = _default_length(in_array, self.string_length)
            return 2 + (_count(length) if _is_count(length) else free)
        if kind in ("integer", "number"):
            return _NUMBER_TOKENS
        if kind == "boolean":
            return 5
        if kind == "null":
            return 4
        if kind == "array":
            return self._array(node, depth)
        if kind == "object" or "properties" in node:
            return self._object(node, depth, in_array)
        return OPEN_VALUE_TOKENS

    def _array(self, node: Mapping[str, Any], depth: int) -> int:
        prefix = [self.tokens(item, depth + 1, True) for item in node.get("prefixItems") or ()]
        items = node.get("items")
        limit = node.get("maxItems")
        count = _count(limit) if _is_count(limit) else DEFAULT_ITEMS
        rest = max(count - len(prefix), 0) if items is not False else 0
        each = (
            self.tokens(items, depth + 1, True) if isinstance(items, Mapping) else OPEN_VALUE_TOKENS
        )
        return 2 + sum(prefix) + rest * each + (len(prefix) + rest) * 2

    def _object(self, node: Mapping[str, Any], depth: int, in_array: bool) -> int:
        total = 2
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            for key, value in properties.items():
                value_tokens = self.tokens(value, depth + 1, in_array)
                total += len(json.dumps(key)) + _FIELD_TOKENS + value_tokens
        extra = node.get("additionalProperties")
        if extra is True or isinstance(extra, Mapping) or (not properties and extra is None):
            total += OPEN_VALUE_TOKENS
        return total

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            return None
        node: Any = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return node


def _bound_in_place(node: Any, depth: int, in_array: bool, length: int) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, list):
        for item in node:
            _bound_in_place(item, depth + 1, in_array, length)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    plain = not any(key in node for key in ("enum", "const", "format", "pattern", "$ref"))
    if "string" in kinds and plain and not _is_count(node.get("maxLength")):
        node["maxLength"] = max(_default_length(in_array, length), _count(node.get("minLength")))
    if "array" in kinds and not _is_count(node.get("maxItems")):
        node["maxItems"] = max(DEFAULT_ITEMS, _count(node.get("minItems")))
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        children = node.get(key)
        if isinstance(children, dict):
            inside = in_array and key in ("properties", "patternProperties")
            for child in children.values():
                _bound_in_place(child, depth + 1, inside, length)
    _bound_in_place(node.get("additionalProperties"), depth + 1, in_array, length)
    for key in ("anyOf", "oneOf", "allOf"):
        _bound_in_place(node.get(key), depth + 1, in_array, length)
    _bound_in_place(node.get("items"), depth + 1, True, length)
    _bound_in_place(node.get("prefixItems"), depth + 1, True, length)


def _default_length(in_array: bool, length: int) -> int:
    return max(1, length // DEFAULT_ITEMS) if in_array else length


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _count(value: Any) -> int:
    return int(value) if _is_count(value) else 0


def _json_length(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


__all__ = [
    "DEFAULT_ITEMS",
    "DEFAULT_ITEM_STRING_LENGTH",
    "DEFAULT_STRING_LENGTH",
    "MAX_SCHEMA_TOKENS",
    "OPEN_VALUE_TOKENS",
    "TEXT_TOKENS",
    "answer_bound",
    "bounded_schema",
]
