"""One training step of an optimizer, run one round of LM latency at a time.

`Trainer.fit` predicts a batch while the steps of the batches before it work:
each round it advances every unfinished `StepJob` by one phase beside the next
batch's predictions, then settles them in step order. A phase is one round of
LM calls:

- **proposal** (only for optimizers whose proposals are LM calls, OMEGA:
  `Optimizer.proposals_take_a_round`; RandomFewShot's proposals cost nothing
  and go with the first rows);
- **first rows**: each proposal scored on the first ``ceil(m / 2)`` rows of
  its step's minibatch of ``m`` rows;
- **other rows**: the rest of the minibatch, for the proposals still in the race.

**Paired scores.** A proposal is compared with the incumbent (its variable's
best candidate when its scoring starts, with its reward as it stands) on the
same rows: its score is the incumbent's reward plus its mean difference from
the incumbent on the rows it was scored on, kept in [0, 1]. The incumbent's
reward on a row is known when the row is in its ``row_rewards`` (the rows of its
own minibatch, and every validation row of an epoch's validation pass it was in
force for); elsewhere the incumbent counts for its reward (so with no row known
the score is the proposal's plain mean). A minibatch of easy rows thus does not
make a mediocre proposal look better than the incumbent, which got them right
too. Pairing costs no call: before the first validation pass (the first epoch)
most rows are not known yet, and a proposal lucky on its rows can still replace
a better incumbent there; from the second epoch on every validation row of the
incumbent in force at the epoch's start is known. Known rows live in the
candidates, which save with the variables, so a resumed run pairs as the
uninterrupted one did.

**Racing.** After its first rows, a proposal that could not beat the incumbent
even with a perfect reward (1.0) on every other row is not scored further: it
joins the population with its score on the rows it was scored on, which is at
most the incumbent's reward. The full minibatch could not have made it the best
either, so racing never changes which candidate is written into a variable,
only how many rows it costs. What it may wrongly discard is what the minibatch
itself may: a candidate that is better in truth and unlucky on its first rows;
and the score it keeps rests on fewer rows, so it is a noisier parent (OMEGA)
and fitness (DNS). When no batch is left to overlap (``last``, the end of an
epoch) the whole minibatch is scored at once.

Everything a job reads or writes of the optimizer and its variables happens
when it is created, at the start of `StepJob.advance` (before its first await)
or in `StepJob.settle`, which the trainer calls between rounds in step order:
what a step sees never depends on which LM call answered first, so a run is
the same whatever the latencies (and a resumed run the same as an
uninterrupted one).
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import enum
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from optimizer_core.datamodels import JsonDict
from optimizer_core.optimizers.context import SILENT, TrainingContext
from optimizer_core.variables import Variable

MAX_REWARD = 1.0
"""The highest reward a row can earn (rewards are in [0, 1])."""


@dataclasses.dataclass
class RowRewards:
    """Rewards of some rows of a minibatch.

    Args:
        rewards: each row's reward, in the order asked for.
        rows: the rows' positions in `fit`'s data (training rows, then validation
            rows), in the same order; empty when the scorer does not name them.
        feedback: what the reward said of each row beside its score (None where it
            said nothing), in the same order; empty when the scorer does not say.
    """

    rewards: list[float]
    rows: list[int] = dataclasses.field(default_factory=list)
    feedback: list[str | None] = dataclasses.field(default_factory=list)


class Minibatch(abc.ABC):
    """The rows a training step scores its proposals on, ``size`` of them.

    `fit` gives one per step (see `Trainer.fit`'s ``minibatch_size``); a proposal
    is scored on some of its rows first, then on the rest (see racing above).
    """

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """How many rows the minibatch holds."""

    @abc.abstractmethod
    def values_for(self, trial: Mapping[str, JsonDict]) -> Any:
        """The program's values with `trial` in place, taken now and kept for every stage."""

    @abc.abstractmethod
    async def score(self, values: Any, indices: Sequence[int]) -> RowRewards:
        """The rewards of the minibatch's rows at `indices` with `values` (from `values_for`)."""

    def row_ids(self) -> list[int]:
        """Each row's position in `fit`'s data, in minibatch order (empty: not named)."""
        return []


class FunctionMinibatch(Minibatch):
    """A plain ``async evaluate(trial) -> reward`` as a minibatch of one block.

    ``evaluate`` may return a float or an object with ``reward``, ``rows`` and
    ``rewards`` (`optimizers.optimizer.MinibatchScore`); it is scored whole:
    neither racing nor pairing happens.
    """

    def __init__(self, evaluate: Callable[[dict[str, JsonDict]], Awaitable[Any]]) -> None:
        self.evaluate = evaluate

    @property
    def size(self) -> int:
        return 1

    def values_for(self, trial: Mapping[str, JsonDict]) -> Any:
        return dict(trial)

    async def score(self, values: Any, indices: Sequence[int]) -> RowRewards:
        score = await self.evaluate(values)
        if isinstance(score, int | float):
            return _Whole([float(score)], mean=float(score))
        rows = [int(row) for row in getattr(score, "rows", ()) or ()]
        rewards = [float(r) for r in getattr(score, "rewards", ()) or ()]
        if not rows or len(rewards) != len(rows):
            rows, rewards = [], [float(score.reward)]
        return _Whole(rewards=rewards, rows=rows, mean=float(score.reward))


@dataclasses.dataclass
class _Whole(RowRewards):
    """A whole-minibatch score from a plain function: its own mean is the reward."""

    mean: float = 0.0


class StepOwner(Protocol):
    """What a `StepJob` needs of its optimizer (`Optimizer` provides it)."""

    @property
    def proposals_take_a_round(self) -> bool: ...

    async def propose_candidates(
        self, step: int, trainable_variables: list[Variable], context: TrainingContext
    ) -> list[tuple[Variable, JsonDict, list[str], str]]: ...

    def incumbent(self, variable: Variable) -> JsonDict | None: ...

    async def keep_scored(
        self,
        step: int,
        trainable_variables: Sequence[Variable],
        scored: list[ScoredProposal],
        context: TrainingContext = ...,
    ) -> None: ...


@dataclasses.dataclass
class ScoredProposal:
    """A proposal with what its minibatch said of it.

    Args:
        variable: the variable it is a new value of.
        value: its trainable JSON.
        parents: its parents' candidate ids.
        operation: how it was made (``few_shot``, ``mutation``, ``crossover``).
        reward: its score on the rows it was scored on (paired with the incumbent's).
        rows: those rows' positions in `fit`'s data (empty when not named).
        rewards: each row's reward, in the order of `rows`.
        feedback: each row's feedback from the reward, in the order of `rewards`
            (None where it gave none; empty when the scorer does not say).
        stopped_early: racing stopped it after its first rows.
        incumbent: the id of the candidate it was compared with (None: none).
        incumbent_reward: that candidate's reward then.
        incumbent_rewards: its known reward on each of `rows` (None where unknown).
    """

    variable: Variable
    value: JsonDict
    parents: list[str]
    operation: str
    reward: float
    rows: list[int]
    rewards: list[float]
    stopped_early: bool = False
    incumbent: str | None = None
    incumbent_reward: float | None = None
    incumbent_rewards: list[float | None] = dataclasses.field(default_factory=list)
    feedback: list[str | None] = dataclasses.field(default_factory=list)


def record_rows(candidate: JsonDict, rows: Sequence[int], rewards: Sequence[float]) -> None:
    """Keep a candidate's reward on each row (``row_rewards``, keyed by the row as text)."""
    known: JsonDict = dict(candidate.get("row_rewards") or {})
    known.update({str(row): float(r) for row, r in zip(rows, rewards, strict=True)})
    candidate["row_rewards"] = known


class _Phase(enum.Enum):
    PROPOSE = "propose"
    FIRST_ROWS = "first rows"
    FIRST_SCORED = "first rows scored"
    OTHER_ROWS = "other rows"
    ALL_SCORED = "all rows scored"
    DONE = "done"


@dataclasses.dataclass
class _Entry:
    """One proposal being scored: its rows so far, and the incumbent it must beat."""

    variable: Variable
    value: JsonDict
    parents: list[str]
    operation: str
    values: Any = None
    rewards: list[float] = dataclasses.field(default_factory=list)
    rows: list[int] = dataclasses.field(default_factory=list)
    feedback: list[str | None] = dataclasses.field(default_factory=list)
    mean: float | None = None
    stopped: bool = False
    incumbent: JsonDict | None = None

    def add(self, scored: RowRewards) -> None:
        self.rewards.extend(scored.rewards)
        self.rows.extend(scored.rows)
        self.feedback.extend(scored.feedback)
        if isinstance(scored, _Whole):
            self.mean = scored.mean

    @property
    def anchor(self) -> float | None:
        """The incumbent's reward, what the proposal must beat (None: nothing to beat)."""
        if self.mean is not None or self.incumbent is None:
            return None
        reward = self.incumbent.get("reward")
        return None if reward is None else float(reward)

    def known(self, minibatch: Minibatch) -> list[float | None]:
        """The incumbent's known reward on each row of the minibatch (None where unknown)."""
        recorded = (self.incumbent or {}).get("row_rewards") or {}
        ids = minibatch.row_ids()
        if len(ids) != minibatch.size:
            return [None] * minibatch.size
        return [None if recorded.get(str(i)) is None else float(recorded[str(i)]) for i in ids]

    def gain(self, minibatch: Minibatch, *, best_case: bool = False) -> float:
        """Summed paired difference with the incumbent (its reward where unknown).

        ``best_case``: with a perfect reward on the rows not scored yet (racing).
        """
        anchor = self.anchor or 0.0
        baseline = [anchor if b is None else b for b in self.known(minibatch)]
        scored = len(self.rewards)
        gain = sum(c - b for c, b in zip(self.rewards, baseline[:scored], strict=True))
        if best_case:
            gain += sum(MAX_REWARD - b for b in baseline[scored:])
        return gain

    def score(self, minibatch: Minibatch) -> float:
        """The proposal's score: paired with the incumbent, or its plain mean."""
        anchor = self.anchor
        if anchor is None:
            return self.mean if self.mean is not None else _mean(self.rewards)
        gain = self.gain(minibatch) / max(1, len(self.rewards))
        return min(MAX_REWARD, max(0.0, anchor + gain))

    def result(self, minibatch: Minibatch) -> ScoredProposal:
        known = self.known(minibatch)[: len(self.rewards)] if self.anchor is not None else []
        return ScoredProposal(
            variable=self.variable,
            value=self.value,
            parents=self.parents,
            operation=self.operation,
            reward=self.score(minibatch),
            rows=list(self.rows),
            rewards=list(self.rewards),
            stopped_early=self.stopped,
            incumbent=None if self.incumbent is None else self.incumbent.get("id"),
            incumbent_reward=self.anchor,
            incumbent_rewards=known,
            feedback=list(self.feedback),
        )


class StepJob:
    """One training step: propose, score with racing, keep; one phase per `advance`.

    Args:
        owner: the optimizer.
        step: the global step number.
        trainable_variables: the variables to optimise.
        minibatch: the rows to score proposals on.
        context: the fit it runs in (default: none, events dropped); its
            proposals and what it keeps see it.

    Drive it with ``advance()`` then ``settle()`` until ``done`` (`Optimizer.train_step`
    does so one phase after the other; `Trainer.fit` beside the next batches).
    """

    def __init__(
        self,
        owner: StepOwner,
        step: int,
        trainable_variables: Sequence[Variable],
        minibatch: Minibatch,
        context: TrainingContext = SILENT,
    ) -> None:
        self.owner = owner
        self.context = context
        self.step = step
        self.variables = list(trainable_variables)
        self.minibatch = minibatch
        self._phase = _Phase.PROPOSE
        self._entries: list[_Entry] = []
        self._first = minibatch.size

    @property
    def done(self) -> bool:
        return self._phase is _Phase.DONE

    async def advance(self, *, last: bool = False) -> None:
        """Run the next phase's LM calls.

        Args:
            last: no batch is predicted beside this round (default False): the
                first rows are the whole minibatch (nothing to overlap a second
                round with).
        """
        size = self.minibatch.size
        if self._phase is _Phase.PROPOSE:
            proposals = await self.owner.propose_candidates(self.step, self.variables, self.context)
            self._entries = [_Entry(v, value, list(p), op) for v, value, p, op in proposals]
            self._phase = _Phase.FIRST_ROWS
            if self.owner.proposals_take_a_round or not self._entries:
                return
        if self._phase is _Phase.FIRST_ROWS:
            self._first = size if last or size < 2 else (size + 1) // 2
            for entry in self._entries:
                entry.values = self.minibatch.values_for({entry.variable.name: entry.value})
                entry.incumbent = self.owner.incumbent(entry.variable)
            await self._score(self._entries, range(self._first))
            self._phase = _Phase.FIRST_SCORED
        elif self._phase is _Phase.OTHER_ROWS:
            await self._score([e for e in self._entries if not e.stopped], range(self._first, size))
            self._phase = _Phase.ALL_SCORED

    async def _score(self, entries: list[_Entry], indices: range) -> None:
        scores = await asyncio.gather(*(self.minibatch.score(e.values, indices) for e in entries))
        for entry, scored in zip(entries, scores, strict=True):
            entry.add(scored)

    async def settle(self) -> None:
        """Apply what the last phase found: stop hopeless proposals, keep the scored ones."""
        size = self.minibatch.size
        if self._phase is _Phase.FIRST_ROWS and self._entries:
            return  # proposed; scored from the next round on
        if self._phase is _Phase.FIRST_SCORED and self._first < size:
            for entry in self._entries:
                entry.stopped = entry.anchor is not None and (
                    entry.gain(self.minibatch, best_case=True) <= 0
                )
            if not all(entry.stopped for entry in self._entries):
                self._phase = _Phase.OTHER_ROWS
                return
        scored = [entry.result(self.minibatch) for entry in self._entries]
        await self.owner.keep_scored(self.step, self.variables, scored, self.context)
        self._phase = _Phase.DONE

    async def run(self) -> None:
        """Every phase, one after the other (nothing overlaps them)."""
        while not self.done:
            await self.advance(last=True)
            await self.settle()


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


__all__ = [
    "MAX_REWARD",
    "FunctionMinibatch",
    "Minibatch",
    "RowRewards",
    "ScoredProposal",
    "StepJob",
    "StepOwner",
    "record_rows",
]
