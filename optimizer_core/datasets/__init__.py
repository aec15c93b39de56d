"""Built-in public data sets, loaded as numpy arrays of data models.

Each data set is a module with ``get_input_data_model()``,
``get_output_data_model()`` and ``load_data(*, path=None, limit=None, ...)``
returning ``((x_train, y_train), (x_test, y_test))``.

Files are looked up in ``path=``, then ``$OPTIMIZER_CORE_DATA_DIR/<name>/``, then
the cache (``$OPTIMIZER_CORE_CACHE_DIR/datasets/<name>/``, by default
``~/.cache/optimizer_core/datasets/<name>/``), and downloaded there as a last
resort; every file is checked against its sha256.

Example:
    ```python
    from optimizer_core import datasets

    (x_train, y_train), (x_test, y_test) = datasets.gsm8k.load_data()
    [entry["name"] for entry in datasets.catalogue()]  # ["gsm8k", "banking77", ...]
    ```
"""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any

from optimizer_core.datasets import banking77, gsm8k, support_tickets

_MODULES: dict[str, ModuleType] = {
    module.NAME.replace("_", ""): module for module in (gsm8k, banking77, support_tickets)
}


def catalogue() -> list[dict[str, Any]]:
    """Describe the built-in data sets.

    Returns:
        One dict per data set with ``name``, ``title``, ``description``,
        ``task``, ``sizes`` (rows per split), ``licence``, ``source``,
        ``input_data_model`` and ``output_data_model`` (class names).
    """
    return [copy.deepcopy(module.INFO) for module in _MODULES.values()]


def get(name: str) -> ModuleType:
    """The module of a built-in data set, by name (case and ``-`` / ``_`` ignored).

    Raises:
        ValueError: no data set has that name.

    Example:
        ```python
        datasets.get("GSM8K").load_data(limit=10)
        ```
    """
    if not isinstance(name, str):
        raise TypeError(f"`name` must be a str, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "").replace("_", "")
    module = _MODULES.get(key)
    if module is None:
        raise ValueError(f"`name` must be one of {sorted(_MODULES)}, got {name!r}")
    return module


__all__ = ["banking77", "catalogue", "get", "gsm8k", "support_tickets"]
