"""Score scales: the fixed sets of grades a language model picks from.

A score type is an `Enum` whose members are numbers: `Score` (0.0 to 1.0 in
11 levels), `FineScore` (0.0 to 1.0 in 21 levels), `Rating` (1 to 5),
`Rating10` (1 to 10) and `Rating20` (1 to 20), as the reference library has
them. As a DataModel field's type, the JSON schema holds the model to one of the
levels; a judge (`rewards.LMAsJudge(score_type=...)`) grades on one, and its
grade is brought back to [0, 1] by `normalize_score`: the lowest level is 0.0,
the highest 1.0, linearly between (``Rating.THREE`` is 0.5, ``Rating10.SEVEN``
is 6/9).

A user's own scale is any such `Enum` with at least two levels; to name it in a
saved document, register it with ``saving.register_synalinks_serializable()``.

Example:
    ```python
    class Review(synalinks.DataModel):
        rating: synalinks.Rating = synalinks.Field(description="1 (worst) to 5 (best)")

    normalize_score(synalinks.Rating.FOUR, synalinks.Rating)  # 0.75
    ```
"""

from __future__ import annotations

import enum
import math
from typing import Any

from optimizer_core.saving.object_registry import get_registered_name, lookup_registered

__all__ = [
    "SCORE_TYPES",
    "FineScore",
    "Rating",
    "Rating10",
    "Rating20",
    "Score",
    "get_score_type",
    "normalize_score",
    "score_levels",
    "score_type_name",
    "snap_to_level",
]


class Score(float, enum.Enum):
    """A grade from 0.0 (very bad) to 1.0 (very good) in steps of 0.1: 11 levels."""

    VERY_BAD = 0.0
    POOR = 0.1
    BELOW_AVERAGE = 0.2
    LOW_AVERAGE = 0.3
    MEDIUM_LOW = 0.4
    MEDIUM = 0.5
    MEDIUM_HIGH = 0.6
    ABOVE_AVERAGE = 0.7
    HIGH_AVERAGE = 0.8
    GOOD = 0.9
    VERY_GOOD = 1.0


class FineScore(float, enum.Enum):
    """A grade from 0.0 (very bad) to 1.0 (very good) in steps of 0.05: 21 levels."""

    VERY_BAD = 0.0
    BAD = 0.05
    POOR = 0.1
    VERY_LOW = 0.15
    BELOW_AVERAGE = 0.2
    LOW = 0.25
    LOW_AVERAGE = 0.3
    SLIGHTLY_LOW = 0.35
    MEDIUM_LOW = 0.4
    SLIGHTLY_BELOW_MEDIUM = 0.45
    MEDIUM = 0.5
    SLIGHTLY_ABOVE_MEDIUM = 0.55
    MEDIUM_HIGH = 0.6
    SLIGHTLY_HIGH = 0.65
    ABOVE_AVERAGE = 0.7
    HIGH = 0.75
    HIGH_AVERAGE = 0.8
    VERY_HIGH = 0.85
    GOOD = 0.9
    EXCELLENT = 0.95
    VERY_GOOD = 1.0


class Rating(int, enum.Enum):
    """A whole-number rating from 1 (worst) to 5 (best)."""

    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5


class Rating10(int, enum.Enum):
    """A whole-number rating from 1 (worst) to 10 (best)."""

    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10


class Rating20(int, enum.Enum):
    """A whole-number rating from 1 (worst) to 20 (best)."""

    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    ELEVEN = 11
    TWELVE = 12
    THIRTEEN = 13
    FOURTEEN = 14
    FIFTEEN = 15
    SIXTEEN = 16
    SEVENTEEN = 17
    EIGHTEEN = 18
    NINETEEN = 19
    TWENTY = 20


#: The built-in scales by name (what a saved document and the run form hold).
SCORE_TYPES: dict[str, type[enum.Enum]] = {
    "Score": Score,
    "FineScore": FineScore,
    "Rating": Rating,
    "Rating10": Rating10,
    "Rating20": Rating20,
}


def _is_score_type(obj: Any) -> bool:
    if not isinstance(obj, type) or not issubclass(obj, enum.Enum) or len(obj) < 2:
        return False
    return all(
        isinstance(member.value, int | float)
        and not isinstance(member.value, bool)
        and math.isfinite(member.value)
        for member in obj
    )


def get_score_type(identifier: str | type[enum.Enum] | None) -> type[enum.Enum]:
    """The scale `identifier` names: a built-in's name, a registered name, the class, or None.

    Args:
        identifier: ``"Score"``, ``"FineScore"``, ``"Rating"``, ``"Rating10"``,
            ``"Rating20"``, the registered name of a user's scale, an `Enum` class
            whose members are numbers (at least two), or None (`Score`).

    Raises:
        ValueError: a name that names no scale, or a class that is not one.
    """
    if identifier is None:
        return Score
    if isinstance(identifier, str):
        found = SCORE_TYPES.get(identifier)
        if found is None and (">" in identifier or "." in identifier):
            candidate = lookup_registered(identifier)
            found = candidate if _is_score_type(candidate) else None
        if found is None:
            raise ValueError(
                f"unknown `score_type` {identifier!r}; built-ins are {list(SCORE_TYPES)}, or "
                "the registered name of an Enum of numbers"
            )
        return found
    if _is_score_type(identifier):
        return identifier
    raise ValueError(
        "`score_type` must be a scale name or an Enum class whose members are numbers "
        f"(at least two), got {identifier!r}"
    )


def score_type_name(score_type: type[enum.Enum]) -> str:
    """The name a document stores for a scale: a built-in's name, else its registered name."""
    for name, built_in in SCORE_TYPES.items():
        if built_in is score_type:
            return name
    return get_registered_name(score_type)


def score_levels(score_type: type[enum.Enum]) -> list[float]:
    """The scale's levels, lowest first, as numbers (ints stay ints)."""
    return sorted(member.value for member in score_type)


def snap_to_level(value: float, score_type: type[enum.Enum]) -> float:
    """The level nearest to `value` (the higher one on a tie).

    Raises:
        ValueError: `value` is outside the scale's range.
    """
    levels = score_levels(score_type)
    if not levels[0] <= value <= levels[-1]:
        raise ValueError(f"must be between {levels[0]} and {levels[-1]}, got {value}")
    return min(levels, key=lambda level: (abs(level - value), -level))


def normalize_score(value: float, score_type: type[enum.Enum]) -> float:
    """A grade on the scale brought to [0, 1]: the lowest level 0.0, the highest 1.0.

    Args:
        value: the grade (a member of the scale, or its number).
        score_type: the scale it was given on.

    Example:
        ```python
        normalize_score(3, Rating)  # 0.5
        ```
    """
    levels = score_levels(score_type)
    low, high = levels[0], levels[-1]
    number = float(value.value if isinstance(value, enum.Enum) else value)
    return min(max((number - low) / (high - low), 0.0), 1.0)
