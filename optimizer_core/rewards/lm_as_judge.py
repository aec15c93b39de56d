"""LMAsJudge: a language model grades the prediction against the ground truth."""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Callable
from typing import Any

from optimizer_core import language_models
from optimizer_core.datamodels import JsonDict
from optimizer_core.exceptions import InvalidResponseError
from optimizer_core.rewards.judge_inputs import judge_inputs
from optimizer_core.rewards.reward import Reward, Scored
from optimizer_core.saving.object_registry import serialize_object
from optimizer_core.saving.params import Param
from optimizer_core.score_types import (
    SCORE_TYPES,
    Score,
    get_score_type,
    normalize_score,
    score_levels,
    score_type_name,
    snap_to_level,
)

__all__ = ["JUDGE_SCHEMA", "REWARD_LEVELS", "LMAsJudge", "judge_schema"]

#: The grades a judge may give on the default scale (`Score`): 0.0, 0.1, ..., 1.0.
REWARD_LEVELS: tuple[float, ...] = tuple(i / 10 for i in range(11))

DEFAULT_CRITERIA = (
    "correctness and completeness: the prediction should state what the ground truth states, "
    "without contradicting it or leaving parts out"
)

DEFAULT_INSTRUCTIONS = (
    "You are a strict and fair judge. You grade a prediction against the ground truth. "
    "The input JSON holds the ground truth's fields, prefixed `gold_`, beside the "
    "predicted fields, which carry the same names without the prefix."
)

_CRITIQUE_DESCRIPTION = "A short assessment of the prediction against the criteria."


def _level_text(level: float) -> str:
    if isinstance(level, int):
        return str(level)
    text = f"{level:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _reward_description(score_type: type[enum.Enum]) -> str:
    levels = [_level_text(level) for level in score_levels(score_type)]
    listed = ", ".join(levels if len(levels) <= 3 else [levels[0], levels[1], "...", levels[-1]])
    return (
        f"The grade, one of {listed}: {levels[-1]} fully meets the criteria, "
        f"{levels[0]} not at all."
    )


def judge_schema(score_type: type[enum.Enum] = Score) -> JsonDict:
    """The JSON schema a judge fills on a scale: a critique first, then the grade.

    Args:
        score_type: the scale (default `Score`); the grade's ``enum`` is its levels.
    """
    levels = score_levels(score_type)
    return {
        "title": "JudgeVerdict",
        "type": "object",
        "properties": {
            "critique": {"type": "string", "description": _CRITIQUE_DESCRIPTION},
            "reward": {
                "type": "integer" if all(isinstance(v, int) for v in levels) else "number",
                "enum": levels,
                "description": _reward_description(score_type),
            },
        },
        "required": ["critique", "reward"],
        "additionalProperties": False,
    }


#: The JSON schema the judge fills on the default scale (`Score`).
JUDGE_SCHEMA: JsonDict = judge_schema(Score)


def _verdict_reader(score_type: type[enum.Enum]) -> Callable[[Any], float]:
    """Reads a judge's answer: the grade snapped to the scale's nearest level, then to [0, 1].

    A grade between two levels goes to the nearer (the higher on a tie); one
    outside the scale's range is invalid, and the language model asks again.

    Raises (from the returned function):
        ValueError: the answer has no critique or no grade on the scale's range.
    """

    def read(answer: Any) -> float:
        if not isinstance(answer, dict):
            raise ValueError(f"the answer must be a JSON object, got {type(answer).__name__}")
        if not isinstance(answer.get("critique"), str):
            raise ValueError("the answer's `critique` must be a string")
        grade = answer.get("reward")
        if isinstance(grade, bool) or not isinstance(grade, int | float):
            raise ValueError(f"the answer's `reward` must be a number, got {grade!r}")
        if not math.isfinite(grade):
            raise ValueError(f"the answer's `reward` must be finite, got {grade!r}")
        try:
            level = snap_to_level(float(grade), score_type)
        except ValueError as error:
            raise ValueError(f"the answer's `reward` {error}") from None
        return normalize_score(level, score_type)

    return read


def _optional_text(value: str | None, *, argument: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ValueError(f"`{argument}` must be a non-empty string or None, got {value!r}")
    return value


def _model_name(language_model: Any) -> str | None:
    model = getattr(language_model, "model", None)
    return model if isinstance(model, str) else None


class LMAsJudge(Reward):
    """A language model grades each prediction against its ground truth.

    The judge's system message states its role (`instructions`), the `criteria`
    and the keys to answer with; the user message is the JSON of the masked
    ground truth's fields prefixed ``gold_`` (``gold_answer``) beside the masked
    prediction's fields (``answer``). The answer is constrained by
    `judge_schema` to ``{"critique": str, "reward": number}`` with the reward one
    of the levels of `score_type`: by default `Score`, 0.0, 0.1, ..., 1.0; or
    `FineScore` (21 levels from 0 to 1), `Rating` (1 to 5), `Rating10`, `Rating20`
    (see `optimizer_core.score_types`). The grade is brought back to [0, 1]: the
    lowest level is 0.0, the highest 1.0, linearly between (``Rating`` 3 is 0.5).
    The critique is the row's feedback (`MaskedScorer.score_with_feedback`).
    A grade between levels is snapped to the nearest; one outside the scale is
    invalid (and retried by the language model). When the call still fails after
    the language model's retries, its `LanguageModelError` is raised: the trainer
    decides what a failed judgement means.

    Args:
        language_model: the judge's language model. Required.
        score_type: the scale: ``"Score"`` (default), ``"FineScore"``, ``"Rating"``,
            ``"Rating10"``, ``"Rating20"``, one of those classes, a user's `Enum` of
            numbers (registered, to be saved), or None (`Score`).
        criteria: what the grade is about (default: correctness and completeness
            with respect to the ground truth).
        instructions: replaces the judge's role description (default: a strict,
            fair judge reading ``gold_`` fields); the criteria and the output keys
            are always added after it.
        name: the name it is logged under (default ``"lm_as_judge"``).
        in_mask: show the judge only these fields (default None: all of them).
        out_mask: hide these fields from the judge (default None), e.g. ``["thinking"]``.
        in_mask_pattern: a regex; the fields whose name matches are kept too (default None).
        out_mask_pattern: a regex; the fields whose name matches are dropped too (default None).

    Example:
        ```python
        reward = LMAsJudge(language_model=lm, criteria="accuracy and completeness")
        await reward(Answer(answer="Paris"), Answer(answer="Paris, France"))  # e.g. 0.9
        LMAsJudge(language_model=lm, score_type=synalinks.Rating)  # 4 of 5 gives 0.75
        ```
    """

    needs = frozenset({"language_model"})
    user_params = (
        Param(
            "score_type",
            "the scale the judge grades on, brought back to 0-1: Score (0-1 in tenths), "
            "FineScore (0-1 in twentieths), Rating (1-5), Rating10 (1-10), Rating20 (1-20)",
            label="Score scale",
            type="str",
            choices=tuple(SCORE_TYPES),
            nullable=False,
        ),
        Param(
            "criteria",
            "what the judge grades (none: correctness and completeness against the ground truth)",
        ),
        Param(
            "instructions",
            "replaces the judge's role description; the criteria are still added",
            label="Judge instructions",
        ),
    )

    def __init__(
        self,
        *,
        language_model: language_models.LanguageModel | None = None,
        score_type: str | type[enum.Enum] | None = "Score",
        criteria: str | None = None,
        instructions: str | None = None,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        if language_model is None:
            raise ValueError("`language_model` is required, got None")
        if not callable(language_model):
            raise TypeError(
                "`language_model` must be a language model (an async callable), "
                f"got {type(language_model).__name__}"
            )
        super().__init__(
            name=name,
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )
        self.language_model = language_model
        self.score_type = get_score_type(score_type)
        self.schema = judge_schema(self.score_type)
        self._read_verdict = _verdict_reader(self.score_type)
        self.criteria = _optional_text(criteria, argument="criteria")
        self.instructions = _optional_text(instructions, argument="instructions")

    def format_messages(
        self, y_true: JsonDict | None, y_pred: JsonDict | None
    ) -> list[dict[str, str]]:
        """The judge's prompt for one (masked) sample."""
        system = "\n\n".join(
            [
                self.instructions or DEFAULT_INSTRUCTIONS,
                f"Criteria: {self.criteria or DEFAULT_CRITERIA}",
                "Answer with a JSON containing the following keys: "
                f'["critique", "reward"]. "critique": {_CRITIQUE_DESCRIPTION} '
                f'"reward": {_reward_description(self.score_type)}',
            ]
        )
        user = json.dumps(judge_inputs(y_true, y_pred), ensure_ascii=False)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> Scored:
        """The judge's grade on [0, 1], with its critique as the row's feedback."""
        answer = await self.language_model(
            self.format_messages(y_true, y_pred), schema=self.schema, validate=self._read_verdict
        )
        try:
            grade = self._read_verdict(answer)
            return Scored(grade, answer["critique"].strip() or None)
        except ValueError as error:
            raise InvalidResponseError(
                f"reward {self.name!r}: the judge's answer does not fit the verdict schema: "
                f"{error}",
                model=_model_name(self.language_model),
            ) from error

    def get_config(self) -> dict[str, Any]:
        return {
            "language_model": serialize_object(self.language_model),
            "score_type": score_type_name(self.score_type),
            "criteria": self.criteria,
            "instructions": self.instructions,
            **super().get_config(),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LMAsJudge:
        config = dict(config)
        model: Any = config.pop("language_model", None)
        if isinstance(model, dict):
            model = language_models.deserialize(model)
        return cls(language_model=model, **config)
