"""LMAsJudgeMetric and ProgramAsJudgeMetric: a judge's grade monitored, averaged over rows."""

from __future__ import annotations

import json
from typing import Any

from optimizer_core import metrics
from optimizer_core.language_models import FakeLanguageModel
from optimizer_core.metrics import LMAsJudgeMetric, ProgramAsJudgeMetric
from optimizer_core.saving import safe_mode_scope


async def test_an_lm_judge_metric_averages_the_judges_grades_on_its_scale() -> None:
    lm = FakeLanguageModel(
        responses=[{"critique": "right", "reward": 5}, {"critique": "half", "reward": 3}]
    )
    metric = metrics.get(
        {
            "class_name": "lm_as_judge",
            "config": {"language_model": lm, "score_type": "Rating", "criteria": "the city"},
        }
    )

    assert isinstance(metric, LMAsJudgeMetric) and metric.name == "lm_as_judge_metric"
    await metric.update_state({"answer": "Paris"}, {"answer": "Paris"})
    await metric.update_state({"answer": "Paris"}, {"answer": "Lyon"})
    assert metric.result() == 0.75  # (1.0 + 0.5) / 2
    assert "the city" in lm.calls[0].messages[0]["content"]
    metric.reset_state()
    assert metric.result() == 0.0


async def test_an_lm_judge_metric_round_trips_in_safe_mode() -> None:
    metric = LMAsJudgeMetric(
        language_model=FakeLanguageModel(responses=[{"critique": "ok", "reward": 0.4}]),
        criteria="brevity",
        out_mask=["thinking"],
        name="judged",
    )

    config = json.loads(json.dumps(metrics.serialize(metric)))
    with safe_mode_scope(True):
        again = metrics.deserialize(config)

    assert isinstance(again, LMAsJudgeMetric)
    assert again.get_config() == metric.get_config()
    assert await again.score({"answer": "4", "thinking": "x"}, {"answer": "4"}) == 0.4


async def test_a_program_judge_metric_averages_the_programs_rewards() -> None:
    seen: list[dict[str, Any]] = []

    async def judge(inputs: dict[str, Any]) -> dict[str, float]:
        seen.append(inputs)
        return {"reward": 1.0 if inputs["gold_answer"] == inputs["answer"] else 0.0}

    metric = ProgramAsJudgeMetric(program=judge, in_mask=["answer"])

    await metric.update_state({"answer": "a", "x": 1}, {"answer": "a"})
    await metric.update_state({"answer": "a"}, {"answer": "b"})
    assert metric.result() == 0.5
    assert seen[0] == {"gold_answer": "a", "answer": "a"}


async def test_rows_scored_at_once_all_count() -> None:
    import asyncio

    async def slow_judge(inputs: dict[str, Any]) -> dict[str, float]:
        await asyncio.sleep(0.01)
        return {"reward": 1.0}

    metric = ProgramAsJudgeMetric(program=slow_judge)
    await asyncio.gather(*(metric.update_state({"a": 1}, {"a": 1}) for _ in range(5)))
    assert (metric.count, metric.result()) == (5, 1.0)
