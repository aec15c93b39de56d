"""JSON with a bound on nesting.

Python's parser and everything that walks a parsed value recursively (validation,
serialization, pydantic) overflow the stack on deeply nested input: a body of
``[[[...]]]`` 10,000 deep is a ``RecursionError``, and one 900 deep parses but
breaks whatever reads it next. Every JSON value the studio takes from outside
(request bodies, form fields, uploaded documents, dataset rows) goes through
`loads` or `check_depth` first.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64
"""The deepest nesting accepted (``{"a": [1]}`` is 2 deep); far above any real document."""


class TooDeep(ValueError):
    """A JSON value nested deeper than the limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels (the limit)")
        self.limit = limit


def exceeds_depth(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` (parsed JSON) nests objects / arrays deeper than `limit`.

    Iterative, so it is safe on values of any depth.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def check_depth(value: Any, limit: int = MAX_DEPTH) -> Any:
    """Return `value`, or raise `TooDeep` when it nests deeper than `limit`."""
    if exceeds_depth(value, limit):
        raise TooDeep(limit)
    return value


def loads(text: str | bytes, *, limit: int = MAX_DEPTH, **kwargs: Any) -> Any:
    """`json.loads` (given `kwargs`) that refuses values nested deeper than `limit`.

    Raises:
        TooDeep: nested deeper than `limit` (also when the parser itself overflows).
        json.JSONDecodeError: not JSON.
    """
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise TooDeep(limit) from None
    return check_depth(value, limit)
