"""LM and program judges inside a real training run."""

from __future__ import annotations

import optimizer_core as synalinks
from tests.support import build_program, capitals


class JudgeInput(synalinks.DataModel):
    gold_answer: str | None = None
    answer: str | None = None


class Verdict(synalinks.DataModel):
    critique: str
    reward: float


def strict_judge(messages, schema):
    """A judge program's model: full marks only for a bare answer equal to the gold one."""
    import json

    seen = json.loads(messages[-1]["content"])
    ok = seen.get("answer") == seen.get("gold_answer")
    return {"critique": "matches" if ok else "differs", "reward": 1.0 if ok else 0.0}


async def test_program_as_judge_drives_training() -> None:
    x, y, student = capitals(24)
    judge_in = synalinks.Input(data_model=JudgeInput)
    judge_out = await synalinks.Generator(
        data_model=Verdict, language_model=synalinks.FakeLanguageModel(responder=strict_judge)
    )(judge_in)
    judge = synalinks.Program(inputs=judge_in, outputs=judge_out, name="judge")
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ProgramAsJudge(program=judge),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    before = await program.evaluate(x=x[18:], y=y[18:], verbose=0)
    await program.fit(x=x[:18], y=y[:18], validation_split=0.25, epochs=3, batch_size=4, verbose=0)
    after = await program.evaluate(x=x[18:], y=y[18:], verbose=0)
    assert after["reward"] > before["reward"]


async def test_lm_as_judge_scores_each_prediction() -> None:
    x, y, student = capitals(6)
    graded = synalinks.FakeLanguageModel(responses=[{"critique": "ok", "reward": 0.7}], cycle=True)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(reward=synalinks.rewards.LMAsJudge(language_model=graded, criteria="accuracy"))
    logs = await program.evaluate(x=x, y=y, verbose=0)
    assert abs(logs["reward"] - 0.7) < 1e-9
    assert len(graded.calls) == 6
    assert "gold_answer" in graded.calls[0].messages[-1]["content"]
