"""LMAsJudgeMetric and ProgramAsJudgeMetric: the judges of `optimizer_core.rewards`, as metrics.

A run may watch a judge's grade beside the reward it optimises (exact match
optimised, an LM judge's opinion monitored). Each metric holds the reward it
is named after and scores every row with it, so the prompt, the scale, the
masks and the feedback are the reward's own: one implementation, two roles.
Its result is the mean over the rows since the last reset (0.0 before any).
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

from optimizer_core.metrics.metric import Metric
from optimizer_core.rewards.lm_as_judge import LMAsJudge
from optimizer_core.rewards.program_as_judge import ProgramAsJudge
from optimizer_core.rewards.reward import Reward, Scored
from optimizer_core.saving.params import Param

__all__ = ["LMAsJudgeMetric", "ProgramAsJudgeMetric"]


class _RewardMean(Metric):
    """A metric scoring each row with a reward (`reward`), its result their mean."""

    #: The reward it scores with, and the constructor arguments that are objects.
    reward_class: ClassVar[type[Reward]]
    _objects: ClassVar[tuple[str, ...]]

    def __init__(self, *, name: str | None = None, **settings: Any) -> None:
        super().__init__(name=name)
        self.reward = self.reward_class(name=self.name, **settings)
        self.total = 0.0
        self.count = 0

    async def score_with_feedback(self, y_true: Any, y_pred: Any) -> Scored:
        return await self.reward.score_with_feedback(y_true, y_pred)

    async def call(self, y_true: Any, y_pred: Any) -> Any:
        return await self.reward.call(y_true, y_pred)

    async def update_state(self, y_true: Any, y_pred: Any) -> None:
        # Rows are scored concurrently: read the total only once the score is in.
        value = await self.score(y_true, y_pred)
        self.total += value
        self.count += 1

    def result(self) -> float:
        return self.total / self.count if self.count else 0.0

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0

    def get_config(self) -> dict[str, Any]:
        return self.reward.get_config()

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        reward = cls.reward_class.from_config(config)  # rebuilds the objects, safely
        objects = {key: getattr(reward, key) for key in cls._objects}
        return cls(**{**config, **objects})


class LMAsJudgeMetric(_RewardMean):
    """An LM judge's grade of each row, averaged: `LMAsJudge` monitored as a metric.

    Takes `LMAsJudge`'s arguments (the judge's language model, its scale, criteria,
    instructions and masks); its family also finds it as ``"lm_as_judge"``.

    Args:
        language_model: the judge's language model. Required.
        score_type: the scale (default ``"Score"``), as for `LMAsJudge`.
        criteria: what the grade is about (default: correctness and completeness).
        instructions: replaces the judge's role description (default None).
        name: the name it is logged under (default ``"lm_as_judge_metric"``).
        in_mask: show the judge only these fields (default None: all of them).
        out_mask: hide these fields from the judge (default None).
        in_mask_pattern: a regex; the fields whose name matches are kept too (default None).
        out_mask_pattern: a regex; the fields whose name matches are dropped too (default None).

    Example:
        ```python
        metric = LMAsJudgeMetric(language_model=judge_lm, score_type="Rating")
        ```
    """

    reward_class = LMAsJudge
    _objects = ("language_model",)
    needs = LMAsJudge.needs
    user_params: ClassVar[tuple[Param, ...]] = LMAsJudge.user_params

    def __init__(
        self,
        *,
        language_model: Any = None,
        score_type: str | type[enum.Enum] | None = "Score",
        criteria: str | None = None,
        instructions: str | None = None,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        super().__init__(
            name=name,
            language_model=language_model,
            score_type=score_type,
            criteria=criteria,
            instructions=instructions,
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )


class ProgramAsJudgeMetric(_RewardMean):
    """A judge program's reward of each row, averaged: `ProgramAsJudge` monitored as a metric.

    Takes `ProgramAsJudge`'s arguments (the judge program and the masks); its
    family also finds it as ``"program_as_judge"``.

    Args:
        program: the judge, an async callable such as a `Program`. Required.
        name: the name it is logged under (default ``"program_as_judge_metric"``).
        in_mask: show the judge only these fields (default None: all of them).
        out_mask: hide these fields from the judge (default None).
        in_mask_pattern: a regex; the fields whose name matches are kept too (default None).
        out_mask_pattern: a regex; the fields whose name matches are dropped too (default None).

    Example:
        ```python
        metric = ProgramAsJudgeMetric(program=judge_program)
        ```
    """

    reward_class = ProgramAsJudge
    _objects = ("program",)
    needs = ProgramAsJudge.needs

    def __init__(
        self,
        *,
        program: Any = None,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        super().__init__(
            name=name,
            program=program,
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )
