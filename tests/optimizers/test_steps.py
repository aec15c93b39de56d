"""A training step's job: phases, the racing rule, plain evaluate functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import optimizer_core as synalinks
from optimizer_core.modules.generator import GeneratorState
from optimizer_core.optimizers import OMEGA, RandomFewShot
from optimizer_core.optimizers.optimizer import credit
from optimizer_core.optimizers.steps import Minibatch, RowRewards
from optimizer_core.variables import Variable


class ScriptedMinibatch(Minibatch):
    """Row rewards by the trial's instructions (one for every row, or one per row)."""

    def __init__(self, size: int, reward_of: Mapping[str, float | list[float]]) -> None:
        self._size = size
        self.reward_of = reward_of
        self.scored: list[tuple[str, int]] = []

    @property
    def size(self) -> int:
        return self._size

    def values_for(self, trial: Mapping[str, Any]) -> Any:
        (value,) = trial.values()
        return value

    async def score(self, values: Any, indices: Sequence[int]) -> RowRewards:
        instructions = values["instructions"]
        self.scored += [(instructions, row) for row in indices]
        reward = self.reward_of[instructions]
        rewards = reward if isinstance(reward, list) else [reward] * self._size
        return RowRewards([rewards[i] for i in indices], rows=list(indices))

    def row_ids(self) -> list[int]:
        return list(range(self._size))


def generator_variable() -> Variable:
    return Variable(
        name="answerer/state",
        initial_value={"instructions": "Incumbent.", "examples": []},
        data_model=GeneratorState,
    )


class Proposing(RandomFewShot):
    """Proposes the given instructions, one proposal each, in that order."""

    def __init__(self, instructions: list[str]) -> None:
        super().__init__(seed=0)
        self.instructions = instructions

    async def propose_candidates(
        self, step: int, trainable_variables: list[Variable], context: Any
    ) -> Any:
        (variable,) = trainable_variables
        current = variable.get("current_candidate")
        return [
            (variable, {"instructions": text, "examples": []}, [current], "rewrite")
            for text in self.instructions
        ]


async def built(optimizer: Any, incumbent_reward: float) -> Variable:
    variable = generator_variable()
    await optimizer.build([variable])
    credit(variable.get("best_candidates")[0], incumbent_reward)
    return variable


async def run_overlapped(job: Any) -> int:
    """Advance a job as `fit` does beside batches; the number of rounds it took."""
    rounds = 0
    while not job.done:
        await job.advance()
        await job.settle()
        rounds += 1
    return rounds


async def test_racing_stops_a_hopeless_proposal_after_its_first_rows_and_keeps_a_good_one():
    optimizer = Proposing(["Hopeless.", "Good."])
    variable = await built(optimizer, incumbent_reward=0.75)
    minibatch = ScriptedMinibatch(4, {"Hopeless.": 0.0, "Good.": 1.0, "Incumbent.": 0.75})
    job = await optimizer.begin_step(0, [variable], batch_reward=0.75, evaluate=minibatch)
    assert await run_overlapped(job) == 2  # first rows, then the other rows for "Good."

    # 0 + 0 on the first two rows: even 1 + 1 on the others gives 0.5 <= 0.75.
    assert [row for text, row in minibatch.scored if text == "Hopeless."] == [0, 1]
    assert [row for text, row in minibatch.scored if text == "Good."] == [0, 1, 2, 3]
    assert not [row for text, row in minibatch.scored if text == "Incumbent."]
    by_text = {c["value"]["instructions"]: c for c in variable.get("best_candidates")}
    assert by_text["Hopeless."]["reward"] == 0.0
    assert by_text["Good."]["reward"] == 1.0
    assert variable.get("instructions") == "Good.", "the good proposal is written in"


async def test_racing_goes_on_while_the_other_rows_could_still_win():
    optimizer = Proposing(["Close."])
    variable = await built(optimizer, incumbent_reward=0.6)
    # 0.5 on the first rows: 1.0 on the others would give 0.75 > 0.6, so they are scored.
    minibatch = ScriptedMinibatch(4, {"Close.": 0.5})
    job = await optimizer.begin_step(0, [variable], batch_reward=0.6, evaluate=minibatch)
    await run_overlapped(job)
    assert len(minibatch.scored) == 4
    assert variable.get("instructions") == "Incumbent.", "0.5 does not beat 0.6"


async def test_a_stopped_proposal_could_not_have_won_on_the_whole_minibatch():
    """The rule is exact: what it stops loses on the full minibatch too (ties keep the incumbent)."""
    for incumbent in (0.0, 0.25, 0.5, 0.75, 1.0):
        for first_rows in ([0.0, 0.0], [0.0, 1.0], [1.0, 1.0]):
            # The best the other rows could do; the incumbent's rows are its reward.
            rows = {"Try.": [*first_rows, 1.0, 1.0], "Incumbent.": incumbent}
            raced, whole = Proposing(["Try."]), Proposing(["Try."])
            raced_variable = await built(raced, incumbent_reward=incumbent)
            whole_variable = await built(whole, incumbent_reward=incumbent)
            minibatch = ScriptedMinibatch(4, rows)
            job = await raced.begin_step(0, [raced_variable], batch_reward=incumbent,
                                         evaluate=minibatch)  # fmt: skip
            await run_overlapped(job)
            job = await whole.begin_step(0, [whole_variable], batch_reward=incumbent,
                                         evaluate=ScriptedMinibatch(4, rows))  # fmt: skip
            await job.run()
            stopped = len(minibatch.scored) == 2
            assert stopped == ((sum(first_rows) + 2) / 4 <= incumbent), (incumbent, first_rows)
            if stopped:
                assert whole_variable.get("instructions") == "Incumbent."
            assert raced_variable.get("instructions") == whole_variable.get("instructions")


async def test_scores_are_paired_with_the_incumbents_known_rows():
    """Easy rows the incumbent also got right do not make a proposal look better."""
    optimizer = Proposing(["Easy rows.", "Better."])
    variable = await built(optimizer, incumbent_reward=0.75)
    # The incumbent's rewards on the rows, as a validation pass records them.
    optimizer.record_validation([variable], [0, 1, 2, 3], [1.0, 1.0, 1.0, 0.0])
    minibatch = ScriptedMinibatch(4, {"Easy rows.": [1.0, 1.0, 1.0, 0.0], "Better.": 1.0})
    job = await optimizer.begin_step(0, [variable], batch_reward=0.75, evaluate=minibatch)
    await run_overlapped(job)
    by_text = {c["value"]["instructions"]: c for c in variable.get("best_candidates")}
    # A raw mean of 0.75 on three easy rows and a hard one: the incumbent's results.
    assert by_text["Easy rows."]["reward"] == 0.75
    # 0.75 + (0 + 0 + 0 + 1) / 4: the one row it gets and the incumbent does not.
    assert by_text["Better."]["reward"] == 1.0
    assert variable.get("instructions") == "Better."

    optimizer = Proposing(["Easy rows."])
    variable = await built(optimizer, incumbent_reward=0.75)
    optimizer.record_validation([variable], [0, 1, 2, 3], [1.0] * 4)
    minibatch = ScriptedMinibatch(4, {"Easy rows.": 1.0})
    job = await optimizer.begin_step(0, [variable], batch_reward=0.75, evaluate=minibatch)
    await run_overlapped(job)
    (proposal,) = variable.get("candidates")
    assert proposal["reward"] == 0.75, "no better than the incumbent on the same rows"
    assert len(minibatch.scored) == 2, "so racing stops it after its first rows"
    assert variable.get("instructions") == "Incumbent."


async def test_the_last_round_scores_the_whole_minibatch_at_once():
    optimizer = Proposing(["Hopeless."])
    variable = await built(optimizer, incumbent_reward=0.75)
    minibatch = ScriptedMinibatch(4, {"Hopeless.": 0.0})
    job = await optimizer.begin_step(0, [variable], batch_reward=0.75, evaluate=minibatch)
    await job.advance(last=True)
    await job.settle()
    assert job.done and len(minibatch.scored) == 4


async def test_omega_proposes_in_one_round_and_scores_from_the_next():
    lm = synalinks.FakeLanguageModel(
        responder=lambda m, s: {"thinking": "", "instructions": "New."}
    )
    optimizer = OMEGA(language_model=lm, embedding_model=synalinks.FakeEmbeddingModel(), seed=0)
    variable = await built(optimizer, incumbent_reward=0.0)
    minibatch = ScriptedMinibatch(4, {"New.": 1.0, "Incumbent.": 0.0})
    job = await optimizer.begin_step(0, [variable], batch_reward=0.0, evaluate=minibatch)
    await job.advance()
    await job.settle()
    assert len(lm.calls) == 1 and not minibatch.scored, "the proposal round scores nothing"
    await job.advance()
    await job.settle()
    assert len(minibatch.scored) == 2 and not job.done
    assert await run_overlapped(job) == 1  # its other rows
    assert variable.get("instructions") == "New."
