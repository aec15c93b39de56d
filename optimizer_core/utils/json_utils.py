"""JSON helpers shared by rewards and metrics: flattening, field masks, text normalisation.

Field masks (`in_mask` / `out_mask`) match on the *base key*. The base key of a
name is computed in two steps:

1. a trailing ``_<digits>`` is removed (``answer_1`` -> ``answer``, ``answers_12`` -> ``answers``);
2. then one trailing ``s`` is removed, unless the name is a single character
   (``answers`` -> ``answer``, ``s`` -> ``s``).

A mask entry matches a key when both have the same base key, so the entry
``"answer"`` matches the keys ``answer``, ``answers``, ``answer_1`` and ``answers_2``
(and the entry ``"answers"`` matches the same keys). Comparison is case-sensitive.
The rule is deliberately simple: ``status`` and ``statu`` share a base key.

A mask pattern (`in_pattern` / `out_pattern`, the rewards' and metrics'
``in_mask_pattern`` / ``out_mask_pattern``) is a regular expression that matches a
key when `re.search` finds it in the key as written or in its base key: ``"^gold"``
matches ``gold_answer``, ``"answer$"`` matches ``answers`` (through its base key)
and ``"answers$"`` matches it as written. A pattern adds to the entries of its
mask: a key matched by either is kept (or dropped).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

__all__ = [
    "STOP_WORDS",
    "apply_mask",
    "base_key",
    "compile_mask_pattern",
    "flatten_json",
    "leaf_to_text",
    "normalize_text",
    "tokenize",
]

#: Words dropped by `normalize_text` before token comparison.
STOP_WORDS: frozenset[str] = frozenset({"a", "an", "the", "of", "is"})

_NUMBERED_SUFFIX = re.compile(r"_\d+$")
#: The longest mask pattern accepted: a pattern is a field-name filter, not a program.
MAX_PATTERN_LENGTH = 200


def base_key(key: str) -> str:
    """The key a mask compares: without a trailing ``_<digits>``, then without one trailing ``s``.

    Args:
        key: a field name.

    Example:
        ```python
        base_key("answers_1")  # "answer"
        ```
    """
    stripped = _NUMBERED_SUFFIX.sub("", key)
    if len(stripped) > 1 and stripped.endswith("s"):
        stripped = stripped[:-1]
    return stripped


def flatten_json(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Flatten nested JSON into ``{path: leaf}``.

    Nested dict keys are joined with dots (``a.b``) and list items get ``[i]``
    (``a[0].b``). Leaves are scalars (str, int, float, bool, None). A nested
    empty dict or empty list has no scalar inside, so it is kept as a leaf
    itself, which keeps ``{"tags": []}`` distinguishable from ``{}``; an empty
    top-level object flattens to ``{}``.

    Args:
        obj: a JSON-compatible value. A scalar at the top level is returned under
            `prefix` (or ``""`` when there is no prefix).
        prefix: path to put in front of every key (default ``""``).

    Example:
        ```python
        flatten_json({"a": {"b": 1}, "c": [2, {"d": 3}]})
        # {"a.b": 1, "c[0]": 2, "c[1].d": 3}
        ```
    """
    flat: dict[str, Any] = {}
    _flatten_into(obj, prefix, flat)
    return flat


def _flatten_into(obj: Any, path: str, flat: dict[str, Any]) -> None:
    if isinstance(obj, Mapping) and obj:
        for key, value in obj.items():
            _flatten_into(value, f"{path}.{key}" if path else str(key), flat)
    elif isinstance(obj, list | tuple) and obj:
        for index, value in enumerate(obj):
            _flatten_into(value, f"{path}[{index}]", flat)
    elif path or not isinstance(obj, Mapping | list | tuple):
        flat[path] = obj


def compile_mask_pattern(pattern: str | None, *, argument: str) -> re.Pattern[str] | None:
    """Check and compile a mask pattern (None stays None), naming the argument when it is bad.

    Args:
        pattern: a regular expression, or None.
        argument: the argument's name, for the error message (``"in_mask_pattern"``).

    Raises:
        TypeError: a pattern that is not a string.
        ValueError: an empty pattern, one longer than `MAX_PATTERN_LENGTH`, or one
            that is not a valid regular expression.
    """
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise TypeError(
            f"`{argument}` must be a regular expression (str) or None, got {type(pattern).__name__}"
        )
    if not pattern:
        raise ValueError(f"`{argument}` must be a non-empty regular expression or None")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ValueError(
            f"`{argument}` must be at most {MAX_PATTERN_LENGTH} characters, got {len(pattern)}"
        )
    try:
        return _compiled(pattern)
    except re.error as error:
        raise ValueError(
            f"`{argument}` is not a valid regular expression ({error}): {pattern!r}"
        ) from None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_KeyTest = Callable[[str], bool]


def _key_test(entries: Iterable[str] | None, pattern: str | re.Pattern[str] | None) -> _KeyTest:
    """Whether a key matches an entry (by base key) or the pattern (as written or by base key)."""
    wanted = {base_key(entry) for entry in entries or ()}
    compiled = _compiled(pattern) if isinstance(pattern, str) else pattern

    def matches(key: str) -> bool:
        base = base_key(key)
        if base in wanted:
            return True
        return compiled is not None and (
            compiled.search(key) is not None or compiled.search(base) is not None
        )

    return matches


def apply_mask(
    json: Mapping[str, Any],
    *,
    in_mask: Iterable[str] | None = None,
    out_mask: Iterable[str] | None = None,
    in_pattern: str | re.Pattern[str] | None = None,
    out_pattern: str | re.Pattern[str] | None = None,
) -> dict[str, Any]:
    """Keep or drop fields of a JSON object by base key or pattern, at every nesting level.

    The input is not modified; a new dict is returned.

    `in_mask` and `in_pattern` (when either is given) are applied first, level by level:

    - a key that matches (its base key is an entry's, or the pattern is found in
      it) is kept with its whole subtree;
    - a key that does not match but holds a dict is kept if something inside
      matches, and only the matching parts are kept; a list holding dicts is
      treated the same way item by item (non-dict items are dropped, and the
      list is kept if at least one item kept something);
    - every other key is dropped.

    `out_mask` and `out_pattern` (when either is given) then remove every key that
    matches, at any depth, including inside dicts held in lists.

    See the module docstring for the base-key and pattern rules.

    Args:
        json: the JSON object to mask.
        in_mask: field names to keep (default None: keep everything).
        out_mask: field names to remove (default None: remove nothing).
        in_pattern: a regular expression; matching fields are kept as well (default None).
        out_pattern: a regular expression; matching fields are removed as well (default None).

    Example:
        ```python
        apply_mask({"thinking": "...", "answers": ["4"]}, in_mask=["answer"])
        # {"answers": ["4"]}
        apply_mask({"gold_answer": "4", "answer": "5"}, out_pattern="^gold_")
        # {"answer": "5"}
        ```
    """
    result: dict[str, Any] = dict(json)
    if in_mask is not None or in_pattern is not None:
        result = _keep(result, _key_test(in_mask, in_pattern))
    if out_mask is not None or out_pattern is not None:
        result = _drop(result, _key_test(out_mask, out_pattern))
    return result


def _keep(obj: Mapping[str, Any], wanted: _KeyTest) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in obj.items():
        if wanted(key):
            kept[key] = value
        elif isinstance(value, Mapping):
            inner = _keep(value, wanted)
            if inner:
                kept[key] = inner
        elif isinstance(value, list):
            items = [_keep(item, wanted) for item in value if isinstance(item, Mapping)]
            if any(items):
                kept[key] = items
    return kept


def _drop(obj: Mapping[str, Any], unwanted: _KeyTest) -> dict[str, Any]:
    return {key: _drop_in_value(value, unwanted) for key, value in obj.items() if not unwanted(key)}


def _drop_in_value(value: Any, unwanted: _KeyTest) -> Any:
    if isinstance(value, Mapping):
        return _drop(value, unwanted)
    if isinstance(value, list):
        return [_drop_in_value(item, unwanted) for item in value]
    return value


def leaf_to_text(value: Any) -> str:
    """The string form of a flattened leaf, used to compare leaves as text.

    Strings are returned as is, booleans as ``"true"`` / ``"false"``, None as
    ``""``, and anything else with `str`: numbers (``4`` -> ``"4"``, ``0.5`` ->
    ``"0.5"``) and the empty containers `flatten_json` keeps (``"[]"``, ``"{}"``).

    Args:
        value: a leaf from `flatten_json`.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def normalize_text(s: str) -> str:
    """Lowercase, drop punctuation, drop the words a/an/the/of/is, collapse whitespace.

    Punctuation is every Unicode character whose category starts with ``P``
    (ASCII ``.,!?'"-`` and friends, and also ``«»``, ``—``...). It is deleted,
    not replaced by a space, so ``"don't"`` becomes ``"dont"`` and ``"4.5"``
    becomes ``"45"`` on both sides of a comparison alike.

    Args:
        s: the text to normalise.

    Example:
        ```python
        normalize_text("The capital of France is Paris!")  # "capital france paris"
        ```
    """
    lowered = s.lower()
    without_punctuation = "".join(
        char for char in lowered if not unicodedata.category(char).startswith("P")
    )
    return " ".join(word for word in without_punctuation.split() if word not in STOP_WORDS)


def tokenize(s: str) -> list[str]:
    """The words of `normalize_text(s)`, split on whitespace.

    Args:
        s: the text to tokenise.

    Example:
        ```python
        tokenize("Paris is France")  # ["paris", "france"]
        ```
    """
    return normalize_text(s).split()
