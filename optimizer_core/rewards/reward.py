"""The `Reward` base class and the helpers rewards and metrics share."""

from __future__ import annotations

import abc
import math
from collections.abc import Iterable
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pydantic

from optimizer_core.datamodels import JsonDict, to_json
from optimizer_core.exceptions import RewardError
from optimizer_core.saving.naming import snake_case
from optimizer_core.saving.params import Param
from optimizer_core.utils.json_utils import apply_mask, compile_mask_pattern

__all__ = [
    "Reward",
    "Scored",
    "as_json",
    "snake_case",
    "split_feedback",
    "to_number",
    "validate_mask",
]

#: The longest feedback text kept per row (longer text is cut, with an ellipsis).
MAX_FEEDBACK_CHARS = 2_000


class Scored(NamedTuple):
    """One sample's value and the feedback that came with it (None: none was given)."""

    value: float
    feedback: str | None = None


def split_feedback(result: object, *, what: str) -> Scored:
    """A scorer's result, ``number`` or ``(number, feedback text)``, checked.

    Args:
        result: what a reward, a metric or a user function returned.
        what: who returned it, for the error message (``"reward 'my_reward'"``).

    Raises:
        RewardError: the number is not a finite number, or the pair's second item
            is not a string (or None).
    """
    if isinstance(result, tuple):
        if len(result) != 2:
            raise RewardError(
                f"{what} returned a tuple of {len(result)} items, "
                "expected a number or (number, feedback text)"
            )
        value, feedback = result
        if feedback is not None and not isinstance(feedback, str):
            raise RewardError(
                f"{what} returned feedback of type {type(feedback).__name__}, expected a string"
            )
        if feedback is not None and len(feedback) > MAX_FEEDBACK_CHARS:
            feedback = feedback[: MAX_FEEDBACK_CHARS - 1] + "…"
        return Scored(to_number(value, what=what), feedback or None)
    return Scored(to_number(result, what=what))


def as_json(value: Any) -> JsonDict | None:
    """A DataModel, pydantic model, dict, object with ``get_json()`` or None, as a JSON dict.

    Args:
        value: the sample to convert.

    Raises:
        TypeError: for anything else.
    """
    if value is not None and not isinstance(value, dict | pydantic.BaseModel):
        get_json = getattr(value, "get_json", None)
        if callable(get_json):
            converted = get_json()
            if isinstance(converted, dict):
                return converted
    return to_json(value)


def to_number(value: object, *, what: str) -> float:
    """Check that `value` is a finite real number and return it as a float.

    bool, int, float and numpy integer / floating / bool scalars are accepted.

    Args:
        value: what a reward or metric produced.
        what: who produced it, for the error message (``"reward 'my_reward'"``).

    Raises:
        RewardError: for anything else, NaN or an infinity, naming `what` and the
            value's type, e.g. ``reward 'my_reward' returned str ('0.5'), expected a number``.
    """
    if isinstance(value, bool | int | float | np.integer | np.floating | np.bool_):
        number = float(value)
        if math.isfinite(number):
            return number
        raise RewardError(
            f"{what} returned {type(value).__name__} ({value!r}), expected a finite number"
        )
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    raise RewardError(f"{what} returned {type(value).__name__} ({shown}), expected a number")


def validate_mask(mask: Iterable[str] | None, *, argument: str) -> list[str] | None:
    """Check a field mask: None, or an iterable of strings (not a single string).

    Args:
        mask: the mask given to a constructor.
        argument: the argument's name, for the error message.

    Returns:
        The mask as a new list, or None.
    """
    if mask is None:
        return None
    if isinstance(mask, str):
        raise TypeError(f"`{argument}` must be a list of field names, got the string {mask!r}")
    entries = list(mask)
    for entry in entries:
        if not isinstance(entry, str) or not entry:
            raise TypeError(f"`{argument}` must contain non-empty field names (str), got {entry!r}")
    return entries


class MaskedScorer(abc.ABC):
    """What rewards and metrics share: a name, field masks, and one checked score.

    `score` converts both samples to JSON dicts, applies the masks, runs `call`
    and checks that the result is a finite number; a ``None`` prediction (a
    failed one) scores 0.0 without running `call`.

    Args:
        name: the name it is logged under (default: the class name in snake_case).
        in_mask: keep only these fields (matched by base key, see
            `optimizer_core.utils.json_utils`) before scoring (default None).
        out_mask: drop these fields before scoring (default None).
        in_mask_pattern: a regular expression; the fields whose name it is found
            in are kept too (with `in_mask`: either keeps a field; default None).
        out_mask_pattern: a regular expression; the fields whose name it is found
            in are dropped too (default None).
    """

    #: What the error messages call it ("reward", "metric").
    kind = "scorer"
    #: Constructor arguments its builder supplies (see `optimizer_core.saving.params`).
    needs: ClassVar[frozenset[str]] = frozenset()
    #: The user settings, with what `__init__` enforces (see `optimizer_core.saving.params`).
    user_params: ClassVar[tuple[Param, ...]] = (
        Param("name", "the name it is logged under", offered=False),
        Param(
            "in_mask", "score only these output fields (none: all of them)",
            label="Compare only", type="fields",
        ),
        Param("out_mask", "leave these output fields out", label="Ignore", type="fields"),
        # The run form picks fields by name (above); patterns are for configs and code.
        Param(
            "in_mask_pattern", "also score the output fields whose name matches this regex",
            offered=False,
        ),
        Param(
            "out_mask_pattern", "also leave out the output fields whose name matches this regex",
            offered=False,
        ),
    )  # fmt: skip

    def __init__(
        self,
        *,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"`name` must be a non-empty string or None, got {name!r}")
        self.name: str = name or snake_case(type(self).__name__)
        self.in_mask = validate_mask(in_mask, argument="in_mask")
        self.out_mask = validate_mask(out_mask, argument="out_mask")
        compile_mask_pattern(in_mask_pattern, argument="in_mask_pattern")
        compile_mask_pattern(out_mask_pattern, argument="out_mask_pattern")
        self.in_mask_pattern = in_mask_pattern
        self.out_mask_pattern = out_mask_pattern

    @property
    def masked(self) -> bool:
        """Whether a mask or a mask pattern is set (else samples are scored whole)."""
        return any(
            mask is not None
            for mask in (self.in_mask, self.out_mask, self.in_mask_pattern, self.out_mask_pattern)
        )

    def mask(self, json: JsonDict) -> JsonDict:
        """Apply the masks and the mask patterns to a JSON dict."""
        if not self.masked:
            return json
        return apply_mask(
            json,
            in_mask=self.in_mask,
            out_mask=self.out_mask,
            in_pattern=self.in_mask_pattern,
            out_pattern=self.out_mask_pattern,
        )

    def prepare(self, value: Any) -> Any:
        """Turn one sample into what `call` receives: the masked JSON dict, or None."""
        json = as_json(value)
        return None if json is None else self.mask(json)

    async def score(self, y_true: Any, y_pred: Any) -> float:
        """One sample's value: 0.0 for a ``None`` prediction, else `call`'s checked number.

        Raises:
            RewardError: when `call` returns something that is not a finite number.
        """
        return (await self.score_with_feedback(y_true, y_pred)).value

    async def score_with_feedback(self, y_true: Any, y_pred: Any) -> Scored:
        """One sample's value and feedback (see `score`; a ``None`` prediction has none).

        Raises:
            RewardError: when `call` returns something that is not a finite number,
                or a pair whose second item is not a string.
        """
        if y_pred is None:
            return Scored(0.0)
        result = await self.call(self.prepare(y_true), self.prepare(y_pred))
        return split_feedback(result, what=f"{self.kind} {self.name!r}")

    @abc.abstractmethod
    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> float | Scored:
        """Score the masked samples: a number, or ``(number, feedback text)``.

        `y_pred` is never None here.

        Args:
            y_true: the masked ground truth, or None when there is none.
            y_pred: the masked prediction.
        """

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible (the patterns only when set).

        A document saved before the patterns existed, or without them, reads the same.
        """
        config: dict[str, Any] = {
            "name": self.name,
            "in_mask": self.in_mask,
            "out_mask": self.out_mask,
        }
        if self.in_mask_pattern is not None:
            config["in_mask_pattern"] = self.in_mask_pattern
        if self.out_mask_pattern is not None:
            config["out_mask_pattern"] = self.out_mask_pattern
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """Rebuild an instance from `get_config()`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


class Reward(MaskedScorer):
    """Scores one prediction against its ground truth, usually in [0, 1].

    Subclasses implement `call`, which receives the two samples as JSON dicts
    after masking. Calling the reward (``await reward(y_true, y_pred)``)
    converts DataModels to dicts, applies the masks, runs `call` and checks that
    the result is a finite number. A ``None`` prediction (a failed one) scores
    0.0 without running `call`.

    Args:
        name: the name it is logged under (default: the class name in snake_case).
        in_mask: keep only these fields (matched by base key, see
            `optimizer_core.utils.json_utils`) before scoring (default None).
        out_mask: drop these fields before scoring (default None).
        in_mask_pattern: keep the fields whose name matches this regex too (default None).
        out_mask_pattern: drop the fields whose name matches this regex too (default None).

    Example:
        ```python
        class LengthMatch(Reward):
            async def call(self, y_true, y_pred):
                return float(len(str(y_true)) == len(str(y_pred)))

        score = await LengthMatch(in_mask=["answer"])(y_true, y_pred)
        ```
    """

    kind = "reward"

    async def __call__(self, y_true: Any, y_pred: Any) -> float:
        """Score one prediction (see `MaskedScorer.score`)."""
        return await self.score(y_true, y_pred)
