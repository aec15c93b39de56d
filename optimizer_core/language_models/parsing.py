"""Reading a JSON object out of a model's answer."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_QUOTED_CHARS = 200
_CONTROL_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def parse_json_object(text: str) -> dict[str, Any]:
    """Parse the JSON object in a model's answer.

    Accepts a bare object, one wrapped in a Markdown code fence (```json ... ```),
    or one with prose around it (the outermost ``{...}`` is taken). Raw control
    characters (a newline, a tab...) inside a string, which strict JSON forbids
    but small local models often write, are escaped before giving up.

    Args:
        text: the model's answer.

    Returns:
        The parsed object.

    Raises:
        ValueError: the text holds no JSON object; the message says why.

    Example:
        ```python
        parse_json_object('Sure! {"answer": "Paris"}')  # {"answer": "Paris"}
        ```
    """
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as first_error:
        start, end = stripped.find("{"), stripped.rfind("}")
        if start == -1 or end <= start:
            raise ValueError(f"no JSON object found ({first_error})") from None
        candidate = stripped[start : end + 1]
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError as error:
            repaired = escape_control_characters_in_strings(candidate)
            if repaired == candidate:
                raise ValueError(f"malformed JSON ({error})") from None
            try:
                value = json.loads(repaired)
            except json.JSONDecodeError:
                raise ValueError(f"malformed JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got a JSON {_json_type(value)}")
    return value


def escape_control_characters_in_strings(text: str) -> str:
    """Escape the raw control characters that stand inside JSON strings.

    Strict JSON forbids a raw newline, tab or carriage return (or any character
    below U+0020) inside a string; some grammars let models write them. Each
    one found inside a string becomes its escape (``\\n``, ``\\t``, ``\\r``,
    or ``\\u00XX``); characters outside strings (whitespace between tokens)
    are left alone.

    Args:
        text: JSON text, possibly with raw control characters in its strings.

    Returns:
        The text with those characters escaped; the same text when there were none.

    Example:
        ```python
        escape_control_characters_in_strings('{"a": "x\ny"}')  # '{"a": "x\\ny"}'
        ```
    """
    out: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            elif char < " ":
                out.append(_CONTROL_ESCAPES.get(char) or f"\\u{ord(char):04x}")
                continue
        elif char == '"':
            in_string = True
        out.append(char)
    return "".join(out)


def quote_start(text: str) -> str:
    """The start of a bad answer, quoted for an error message."""
    if len(text) <= _QUOTED_CHARS:
        return repr(text)
    return repr(text[:_QUOTED_CHARS]) + f"... ({len(text)} chars)"


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else type(value).__name__
