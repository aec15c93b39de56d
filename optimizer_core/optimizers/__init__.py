"""Optimizers: rewrite trainable variables to raise the reward.

Look one up with `get`: ``get("random_few_shot")``, ``get("OMEGA")``, a dict
from `serialize` or an instance. ``saving.family("optimizer")`` also lists the
members (built-ins and registered `Optimizer` subclasses) with their settings.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.optimizers.context import TrainingContext
from optimizer_core.optimizers.omega import OMEGA
from optimizer_core.optimizers.optimizer import Optimizer
from optimizer_core.optimizers.random_few_shot import RandomFewShot
from optimizer_core.saving.families import Family

__all__ = [
    "OMEGA",
    "Optimizer",
    "RandomFewShot",
    "TrainingContext",
    "deserialize",
    "get",
    "serialize",
]

_FAMILY: Family[Optimizer] = Family(
    kind="optimizer",
    base=Optimizer,
    # In the order a catalogue shows them; the first is a run form's default.
    built_ins=(RandomFewShot, OMEGA),
)

#: The built-in optimizers by class name.
ALL_OBJECTS: dict[str, type[Optimizer]] = _FAMILY.classes


def serialize(optimizer: Optimizer) -> dict[str, Any]:
    """The optimizer as ``{"module", "class_name", "registered_name", "config"}``."""
    return _FAMILY.serialize(optimizer)


def deserialize(config: dict[str, Any]) -> Optimizer:
    """Rebuild an optimizer from `serialize`'s output."""
    return _FAMILY.deserialize(config)


def get(identifier: Any) -> Optimizer:
    """An optimizer from a name, a saved config, or an instance.

    Args:
        identifier: a built-in name in any spelling (``"random_few_shot"``,
            ``"RandomFewShot"``, ``"omega"``), the registered name of an
            `Optimizer` subclass, a dict from `serialize`, or an `Optimizer`
            (returned as is).

    Raises:
        ValueError: an unknown name, or one whose class needs arguments (``"omega"``).
        TypeError: an identifier of another type.
    """
    return _FAMILY.get(identifier)
