"""The optimizer a run's compile config names, in the engine's own spelling.

A compile config may name an optimizer in any spelling the engine's lookup takes
(``"omega"``, ``"OMEGA"``, ``"random_few_shot"``, ``"RandomFewShot"``, an alias); the
runs table shows, and filters on, the name the catalogue gives it (`Family.name_of`).
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, Q, QuerySet

from optimizer_core.saving import family

M = TypeVar("M", bound=Model)


def _raw_name(compile_config: Any) -> str | None:
    value = compile_config.get("optimizer") if isinstance(compile_config, dict) else None
    if isinstance(value, dict):
        value = value.get("name")
    return value if isinstance(value, str) and value else None


def optimizer_name(compile_config: Any) -> str | None:
    """The optimizer a compile config names (``"omega"`` or ``{"name": "omega", ...}``), as
    the catalogue names it (``"OMEGA"``); an unknown name as it is; None when there is none."""
    raw = _raw_name(compile_config)
    if raw is None:
        return None
    optimizers = family("optimizer")
    found = optimizers.find(raw)
    return optimizers.name_of(found) if found is not None else raw


def catalogue_optimizer(name: str) -> str | None:
    """The catalogue name of the optimizer `name` stands for (``"omega"`` -> ``"OMEGA"``);
    None when the catalogue does not offer it."""
    optimizers = family("optimizer")
    found = optimizers.find(name)
    return optimizers.name_of(found) if found in optimizers.members() else None


def catalogue_optimizers() -> list[str]:
    """The names of the optimizers the catalogue offers."""
    optimizers = family("optimizer")
    return [optimizers.name_of(cls) for cls in optimizers.members()]


def optimizer_spellings(name: str) -> list[str]:
    """Every name a compile config may give the optimizer `name` stands for: its catalogue
    name, its class name, snake_case name and aliases (matched in any case); `name` alone
    when the engine does not know it."""
    optimizers = family("optimizer")
    found = optimizers.find(name)
    if found is None:
        return [name]
    spellings = {name, optimizers.name_of(found)}
    spellings.update(key for key, cls in optimizers.objects.items() if cls is found)
    return sorted(spellings)


def with_optimizer(runs: QuerySet[M], name: str) -> QuerySet[M]:
    """The runs whose compile config names the optimizer `name` stands for, in any spelling
    the engine's lookup takes (``"omega"``, ``"OMEGA"``, ``{"name": "omega", ...}``)."""
    matches = Q()
    for spelling in optimizer_spellings(name):
        matches |= Q(compile_config__optimizer__name__iexact=spelling)
        matches |= Q(compile_config__optimizer__iexact=spelling)
    return runs.filter(matches)
