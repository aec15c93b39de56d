"""Names: the key every family lookup compares, snake_case names and labels for people.

`lookup_key` is the one normalisation of a name: ``"LMAsJudge"``,
``"lm_as_judge"`` and ``"lm-as-judge"`` are the same key, so a family finds a
class by any of its spellings (and the studio's run configs follow the same rule).
`quoted` is how an error message shows a name it got, however long.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["label", "lookup_key", "quoted", "snake_case"]

QUOTED_CHARS = 200
"""The most characters of a name an error message quotes."""

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_ALPHANUMERIC = re.compile(r"[^a-z0-9]")


def snake_case(name: str) -> str:
    """``"LMAsJudge"`` -> ``"lm_as_judge"``, ``"F1Score"`` -> ``"f1_score"``."""
    return _WORD_BOUNDARY.sub("_", name).lower()


def lookup_key(name: str) -> str:
    """The spelling-free key of a name: lower case, letters and digits only.

    Example:
        ```python
        lookup_key("LMAsJudge") == lookup_key("lm_as_judge") == "lmasjudge"
        ```
    """
    return _NOT_ALPHANUMERIC.sub("", name.lower())


def quoted(name: Any) -> str:
    """A name as an error message quotes it: its ``repr``, cut to `QUOTED_CHARS`.

    A document may name anything, a megabyte of text included; the message stays short.
    """
    text = repr(name)
    return text if len(text) <= QUOTED_CHARS else text[: QUOTED_CHARS - 3] + "..."


def _shown(word: str) -> str:
    keep = (word.isupper() and len(word) > 1) or any(c.isdigit() for c in word)
    return word if keep else word.lower()


def label(name: str) -> str:
    """A class or argument name for people.

    Acronyms and words with digits keep their case, other words are lower-cased,
    and the first letter is upper-cased: ``"LMAsJudge"`` -> ``"LM as judge"``,
    ``"F1Score"`` -> ``"F1 score"``, ``"nb_max_examples"`` -> ``"Nb max examples"``.
    """
    words = [word for word in _WORD_BOUNDARY.sub("_", name).split("_") if word]
    text = " ".join(_shown(word) for word in words)
    return text[:1].upper() + text[1:]
