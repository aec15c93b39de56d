"""Small helpers shared by the data set loaders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

Split = tuple[np.ndarray, np.ndarray]
Splits = tuple[Split, Split]


def object_array(items: Sequence[Any]) -> np.ndarray:
    """A 1-D object array holding `items` as they are.

    `np.array(models)` could try to unpack each pydantic model (they are
    iterable); filling an empty object array element by element never does.
    """
    array = np.empty(len(items), dtype=object)
    for index, item in enumerate(items):
        array[index] = item
    return array


def check_limit(limit: int | None) -> None:
    """Validate the `limit` argument of a `load_data`."""
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int | np.integer):
        raise TypeError(f"`limit` must be an int or None, got {type(limit).__name__}")
    if limit < 1:
        raise ValueError(f"`limit` must be >= 1, got {limit}")
