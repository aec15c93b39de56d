"""ProgramAsJudge with tiny async callables standing in for a Program."""

from __future__ import annotations

import json
from typing import Any

import pytest

from optimizer_core.datamodels import DataModel
from optimizer_core.exceptions import SerializationError
from optimizer_core.rewards import ProgramAsJudge
from optimizer_core.saving import register_synalinks_serializable


class Answer(DataModel):
    thinking: str
    answer: str


class JudgeInput(DataModel):
    gold_answer: str
    answer: str


@register_synalinks_serializable()
class EqualityJudge:
    """Gives 1.0 when the predicted answer equals the gold one, else `low`."""

    def __init__(self, low: float = 0.2) -> None:
        self.low = low
        self.seen: list[Any] = []

    async def __call__(self, inputs: Any) -> dict[str, Any]:
        self.seen.append(inputs)
        same = inputs.get("gold_answer") == inputs.get("answer")
        return {"critique": "compared", "reward": 1.0 if same else self.low}

    def get_config(self) -> dict[str, Any]:
        return {"low": self.low}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> EqualityJudge:
        return cls(**config)


class TypedJudge(EqualityJudge):
    input_data_model = JudgeInput


async def test_judge_sees_gold_prefixed_and_predicted_fields() -> None:
    judge = EqualityJudge()
    reward = ProgramAsJudge(program=judge, in_mask=["answer"])

    score = await reward(Answer(thinking="t", answer="4"), Answer(thinking="u", answer="5"))

    assert score == 0.2
    assert judge.seen == [{"gold_answer": "4", "answer": "5"}]


async def test_input_is_validated_into_the_programs_input_data_model() -> None:
    judge = TypedJudge()
    reward = ProgramAsJudge(program=judge, out_mask=["thinking"])

    score = await reward(Answer(thinking="t", answer="4"), Answer(thinking="u", answer="4"))

    assert score == 1.0
    assert judge.seen == [JudgeInput(gold_answer="4", answer="4")]


async def test_output_without_reward_field_scores_zero_with_a_runtime_warning() -> None:
    # The reference scores such a judgement 0.0 rather than stopping the run.
    async def no_reward(inputs: Any) -> dict[str, Any]:
        return {"critique": "fine", "score": 0.9}

    with pytest.warns(RuntimeWarning, match="no `reward` field.*`reward: float`"):
        score = await ProgramAsJudge(program=no_reward)({"answer": "a"}, {"answer": "a"})

    assert score == 0.0


async def test_reward_is_clamped_to_the_unit_interval() -> None:
    async def generous(inputs: Any) -> dict[str, Any]:
        return {"reward": 1.7}

    async def harsh(inputs: Any) -> dict[str, Any]:
        return {"reward": -3}

    assert await ProgramAsJudge(program=generous)({"a": 1}, {"a": 1}) == 1.0
    assert await ProgramAsJudge(program=harsh)({"a": 1}, {"a": 1}) == 0.0


async def test_judge_returning_a_data_model_or_none() -> None:
    class Verdict(DataModel):
        reward: float

    async def model_judge(inputs: Any) -> Verdict:
        return Verdict(reward=0.6)

    async def failed_judge(inputs: Any) -> None:
        return None

    assert await ProgramAsJudge(program=model_judge)({"a": 1}, {"a": 1}) == 0.6
    # A failed judgement is a RuntimeWarning (warnings.warn), as the reference raises it.
    with pytest.warns(RuntimeWarning, match="returned None"):
        assert await ProgramAsJudge(program=failed_judge)({"a": 1}, {"a": 1}) == 0.0


async def test_none_prediction_scores_zero_without_asking_the_judge() -> None:
    judge = EqualityJudge()

    assert await ProgramAsJudge(program=judge)({"answer": "4"}, None) == 0.0
    assert judge.seen == []


def test_program_is_required() -> None:
    with pytest.raises(ValueError, match="`program`"):
        ProgramAsJudge()


def test_config_round_trip_through_the_programs_config() -> None:
    reward = ProgramAsJudge(program=EqualityJudge(low=0.1), name="judge", in_mask=["answer"])

    config = json.loads(json.dumps(reward.get_config()))
    rebuilt = ProgramAsJudge.from_config(config)

    assert isinstance(rebuilt.program, EqualityJudge)
    assert rebuilt.program.low == 0.1
    assert rebuilt.get_config() == config


def test_program_without_get_config_cannot_be_saved() -> None:
    async def judge(inputs: Any) -> dict[str, Any]:
        return {"reward": 1.0}

    with pytest.raises(SerializationError, match="cannot be saved"):
        ProgramAsJudge(program=judge).get_config()
