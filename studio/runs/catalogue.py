"""What run setup offers: the engine's rewards, metrics and optimizers, and the fit settings.

Read from the engine's families (`optimizer_core.saving.family`): every member
whose needs the studio supplies (`config.SUPPLIED_NEEDS`: the run's provider,
the owner's embedding model), with the settings it declares. A reward, metric
or optimizer added to the engine (a built-in, or a class registered with
`register_synalinks_serializable`) shows up here, and in the run form built
from it, with no change to the studio or the browser app; `config` checks a
run's configuration against the same declarations.

Field rules (a param of type ``field_rules``) and judges need more than a
setting's type: ``comparisons`` lists the field rules' comparisons with the rule
keys each reads (`optimizer_core.rewards.field_rules.COMPARISONS`), and
``score_types`` the scales an LM judge grades on, with their levels
(`optimizer_core.score_types`), so the run form builds both from here.

The providers' model catalogue (``/api/providers/catalogue/``) stays apart: it
lists model names for the provider form, not engine classes.
"""

from __future__ import annotations

import logging
from typing import Any

from optimizer_core.rewards.field_rules import COMPARISONS
from optimizer_core.saving import Entry, Param, family
from optimizer_core.score_types import SCORE_TYPES, score_levels
from studio.runs.config import FIT_PARAMS, SUPPLIED_NEEDS

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]

#: The catalogue's sections and the engine family each lists.
SECTIONS = {"rewards": "reward", "metrics": "metric", "optimizers": "optimizer"}


def param_json(param: Param) -> JsonDict:
    """One setting as the API gives it."""
    return {
        "name": param.name,
        "label": param.label,
        "description": param.description,
        "type": param.type,
        "default": param.default,
        "nullable": bool(param.nullable),
        "required": bool(param.required),
        "minimum": param.minimum,
        "maximum": param.maximum,
        "exclusive_minimum": param.exclusive_minimum,
        "exclusive_maximum": param.exclusive_maximum,
        "choices": list(param.choices) if param.choices is not None else None,
    }


def entry_json(entry: Entry) -> JsonDict:
    """One family member as the API gives it."""
    return {
        "name": entry.name,
        "label": entry.label,
        "description": entry.description,
        "needs": list(entry.needs),
        "params": [param_json(param) for param in entry.params],
    }


def entries(kind: str) -> list[Entry]:
    """The members of a family a run can use: those whose needs the studio supplies.

    A member whose declaration does not fit its constructor is left out (and
    logged) rather than breaking the form; the engine's tests catch a built-in's.
    """
    members = family(kind)
    found: list[Entry] = []
    for cls in members.members():
        try:
            entry = members.describe(cls)
        except TypeError as error:
            logger.warning("%s %s left out of the run catalogue: %s", kind, cls.__name__, error)
            continue
        if set(entry.needs) <= set(SUPPLIED_NEEDS):
            found.append(entry)
    return found


#: What the run form calls each scale.
SCALE_LABELS = {
    "Score": "Score 0-1 in tenths",
    "FineScore": "Score 0-1 in twentieths",
    "Rating": "Rating 1-5",
    "Rating10": "Rating 1-10",
    "Rating20": "Rating 1-20",
}


def comparisons_json() -> list[JsonDict]:
    """The field rules' comparisons: name, label, description and the rule keys each reads."""
    return [
        {
            "name": c.name,
            "label": c.label,
            "description": c.description,
            "options": list(c.options),
        }
        for c in COMPARISONS.values()
    ]


def score_types_json() -> list[JsonDict]:
    """The scales an LM judge grades on: name, label and levels (lowest first)."""
    return [
        {"name": name, "label": SCALE_LABELS.get(name, name), "levels": score_levels(cls)}
        for name, cls in SCORE_TYPES.items()
    ]


def run_catalogue() -> JsonDict:
    """``{"rewards", "metrics", "optimizers": [entry...], "fit": [setting...],
    "comparisons": [...], "score_types": [...]}``."""
    catalogue: JsonDict = {
        section: [entry_json(entry) for entry in entries(kind)]
        for section, kind in SECTIONS.items()
    }
    catalogue["fit"] = [param_json(param) for param in FIT_PARAMS]
    catalogue["comparisons"] = comparisons_json()
    catalogue["score_types"] = score_types_json()
    return catalogue
