"""Reading a JSON object out of a model's answer."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_QUOTED_CHARS = 200


def parse_json_object(text: str) -> dict[str, Any]:
    """Parse the JSON object in a model's answer.

    Accepts a bare object, one wrapped in a Markdown code fence (```json ... ```),
    or one with prose around it (the outermost ``{...}`` is taken).

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
        try:
            value = json.loads(stripped[start : end + 1])
        except json.JSONDecodeError as error:
            raise ValueError(f"malformed JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got a JSON {_json_type(value)}")
    return value


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
