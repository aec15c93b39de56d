"""LMAsJudge: a language model grades the prediction against the ground truth."""

from __future__ import annotations

import json
import math
from typing import Any

import pydantic
from pydantic import ConfigDict, Field

from optimizer_core import language_models
from optimizer_core.datamodels import JsonDict
from optimizer_core.exceptions import InvalidResponseError
from optimizer_core.rewards.judge_inputs import judge_inputs
from optimizer_core.rewards.reward import Reward
from optimizer_core.saving.object_registry import serialize_object
from optimizer_core.saving.params import Param

__all__ = ["JUDGE_SCHEMA", "REWARD_LEVELS", "JudgeVerdict", "LMAsJudge"]

#: The grades a judge may give: 0.0, 0.1, ..., 1.0.
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
_REWARD_DESCRIPTION = (
    "The grade, one of 0.0, 0.1, ..., 1.0: 1.0 fully meets the criteria, 0.0 not at all."
)

#: The JSON schema the judge fills: a critique first, then the grade.
JUDGE_SCHEMA: JsonDict = {
    "title": "JudgeVerdict",
    "type": "object",
    "properties": {
        "critique": {"type": "string", "description": _CRITIQUE_DESCRIPTION},
        "reward": {
            "type": "number",
            "enum": list(REWARD_LEVELS),
            "description": _REWARD_DESCRIPTION,
        },
    },
    "required": ["critique", "reward"],
    "additionalProperties": False,
}


class JudgeVerdict(pydantic.BaseModel):
    """The judge's answer. A reward in [0, 1] off the grid is snapped to the nearest tenth."""

    model_config = ConfigDict(extra="ignore")

    critique: str = Field(description=_CRITIQUE_DESCRIPTION)
    reward: float = Field(description=_REWARD_DESCRIPTION)

    @pydantic.field_validator("reward")
    @classmethod
    def _snap_to_tenth(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"reward must be between 0.0 and 1.0, got {value}")
        return math.floor(value * 10 + 0.5) / 10


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
    `JUDGE_SCHEMA` to ``{"critique": str, "reward": float}`` with the reward one
    of 0.0, 0.1, ..., 1.0 and validated with `JudgeVerdict`: a reward elsewhere
    in [0, 1] is snapped to the nearest tenth, one outside [0, 1] is invalid (and
    retried by the language model). When the call still fails after the
    language model's retries, its `LanguageModelError` is raised: the trainer
    decides what a failed judgement means.

    Args:
        language_model: the judge's language model. Required.
        criteria: what the grade is about (default: correctness and completeness
            with respect to the ground truth).
        instructions: replaces the judge's role description (default: a strict,
            fair judge reading ``gold_`` fields); the criteria and the output keys
            are always added after it.
        name: the name it is logged under (default ``"lm_as_judge"``).
        in_mask: show the judge only these fields (default None: all of them).
        out_mask: hide these fields from the judge (default None), e.g. ``["thinking"]``.

    Example:
        ```python
        reward = LMAsJudge(language_model=lm, criteria="accuracy and completeness")
        await reward(Answer(answer="Paris"), Answer(answer="Paris, France"))  # e.g. 0.9
        ```
    """

    needs = frozenset({"language_model"})
    user_params = (
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
        criteria: str | None = None,
        instructions: str | None = None,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
    ) -> None:
        if language_model is None:
            raise ValueError("`language_model` is required, got None")
        if not callable(language_model):
            raise TypeError(
                "`language_model` must be a language model (an async callable), "
                f"got {type(language_model).__name__}"
            )
        super().__init__(name=name, in_mask=in_mask, out_mask=out_mask)
        self.language_model = language_model
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
                f'"reward": {_REWARD_DESCRIPTION}',
            ]
        )
        user = json.dumps(judge_inputs(y_true, y_pred), ensure_ascii=False)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> float:
        answer = await self.language_model(
            self.format_messages(y_true, y_pred),
            schema=JUDGE_SCHEMA,
            validate=JudgeVerdict.model_validate,
        )
        try:
            verdict = JudgeVerdict.model_validate(answer)
        except pydantic.ValidationError as error:
            raise InvalidResponseError(
                f"reward {self.name!r}: the judge's answer does not fit the verdict schema: "
                f"{error}",
                model=_model_name(self.language_model),
            ) from error
        return verdict.reward

    def get_config(self) -> dict[str, Any]:
        return {
            "language_model": serialize_object(self.language_model),
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
