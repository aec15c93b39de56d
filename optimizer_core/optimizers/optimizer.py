"""The optimizer base class: candidates, a population per variable, state that saves.

A training step, as the trainer drives it:

1. the trainer predicts a batch with the current variables and scores it;
   each Generator's (inputs, outputs, reward) lands in its variable's
   ``predictions``;
2. `Optimizer.begin_step` credits that batch's mean reward to the candidate in
   use and returns the step's `StepJob` (`optimizers/steps.py`), which asks
   `propose_candidates` for new values of the variables it selects, scores each
   proposal on a validation minibatch (racing: a proposal that cannot beat the
   incumbent on its first rows is not scored on the others), and hands the scored
   proposals to `keep_scored`, which adds them to the populations and writes the
   best candidate of each population into its variable. The trainer runs a job
   one round of LM calls at a time beside the next batches; `train_step` runs one
   whole, one phase after the other;
3. at each epoch end `on_epoch_end` trims the populations (OMEGA overrides it
   with Dominated Novelty Search).

Every call gets the fit's `TrainingContext` (`optimizers.context`): the program's
description and where events go. Observers get the optimizer's events through
callbacks' ``on_optimizer_event``, enough to rebuild every variable's lineage (a
DAG: a crossover has two parents):

- ``"initial"`` ``{variable, candidate}``: the seed of a population (its root);
- ``"batch_scored"`` ``{candidates: {variable: id}, rows, rewards}``: the rows of a
  training batch and each one's reward, with the candidate each variable used;
- ``"candidate"`` ``{variable, candidate, rows, rewards, merged_into, stopped_early,
  incumbent}``: a scored proposal; ``rows`` and ``rewards`` are its minibatch's (when
  the trainer gives them; only its first rows when racing stopped it, then
  ``stopped_early`` is true), ``merged_into`` the id of an identical candidate it was
  merged into, ``incumbent`` ``{id, reward, rewards}`` the candidate its score is paired
  with (its known reward on each row, None where unknown; see `optimizers.steps`);
- ``"population"`` ``{variable, epoch, population, kept, dropped}``: a competition.

Rows are positions in `fit`'s data: the training rows, then the validation rows.

A candidate is a JSON dict::

    {"id": "generator/state#3", "value": {trainable fields}, "reward": 0.62,
     "nb_evaluations": 2, "parents": ["generator/state#1"],
     "operation": "few_shot", "epoch": 0, "step": 4,
     "row_rewards": {"41": 1.0, "44": 0.0}}

``row_rewards`` holds its reward on each row it was scored on in evaluation mode
(its minibatch, the validation passes it was in force for), keyed by the row's
position as text; proposals are paired with it on them (`optimizers.steps`).

The population of a variable is its ``best_candidates`` list; the candidates
proposed during the current epoch are its ``candidates`` list. Both live in the
variable, so they save with it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar

from optimizer_core.datamodels import JsonDict
from optimizer_core.optimizers.context import SILENT, TrainingContext
from optimizer_core.optimizers.steps import (
    FunctionMinibatch,
    Minibatch,
    ScoredProposal,
    StepJob,
    record_rows,
)
from optimizer_core.saving.params import Param, check_params, user_params
from optimizer_core.variables import Variable


@dataclasses.dataclass(frozen=True)
class MinibatchScore:
    """A trial's mean reward on a minibatch, with the rows it was scored on.

    Args:
        reward: the mean reward.
        rows: the rows' positions in `fit`'s data (training rows, then validation rows).
        rewards: each row's reward, in the order of `rows`.
    """

    reward: float
    rows: tuple[int, ...] = ()
    rewards: tuple[float, ...] = ()


Evaluate = Callable[[dict[str, JsonDict]], Awaitable[float | MinibatchScore]]
"""Score trial values ``{variable name: trainable JSON}`` on a validation minibatch.

It returns the mean reward, or a `MinibatchScore` that also names the rows.
"""

MAX_PREDICTIONS = 512


class Optimizer:
    """Base class of optimizers.

    Args:
        population_size: candidates kept per variable (>= 2).
        seed: seed of the optimizer's random generator (default: unseeded).
        name: a name for logs.
    """

    #: Constructor arguments its builder supplies (see `optimizer_core.saving.params`).
    needs: ClassVar[frozenset[str]] = frozenset()
    #: Whether `propose_candidates` calls a language model: its proposals are then
    #: scored from the round after, so that a step costs one round of LM latency.
    proposals_take_a_round: ClassVar[bool] = False
    #: The user settings, with what `__init__` enforces (see `optimizer_core.saving.params`).
    user_params: ClassVar[tuple[Param, ...]] = (
        Param("population_size", "candidates kept per variable", minimum=2),
        Param("seed", "seed of the optimizer's random generator (none: unseeded)"),
        Param("name", "a name for logs", offered=False),
    )

    def __init__(
        self, *, population_size: int = 10, seed: int | None = None, name: str | None = None
    ) -> None:
        self.check_settings({"population_size": population_size})
        self.population_size = population_size
        self.seed = seed
        self.name = name or type(self).__name__.lower()
        self.rng = random.Random(seed)
        self.iterations = 0
        self.epochs = 0
        self.built = False
        self._next_id = 0

    def check_settings(self, arguments: Mapping[str, Any]) -> None:
        """Check constructor arguments against the settings the class declares.

        Each argument one of the class's `user_params` describes is checked for
        its type, range and choices (`saving.params.check_params`), the argument
        named in the error; the others are left to the constructor. A subclass's
        ``__init__`` calls it first, with its arguments (``locals()`` will do), so
        that a range is written once, in its `Param`, for the form that offers it
        and for the constructor that enforces it.

        Raises:
            TypeError: an argument of the wrong type (None where it is not allowed).
            ValueError: an argument out of range or not one of its choices.
        """
        check_params(user_params(type(self)), arguments)

    # Lifecycle ------------------------------------------------------------------------------

    async def build(
        self, trainable_variables: Sequence[Variable], context: TrainingContext = SILENT
    ) -> None:
        """Seed each variable's population with its current value (once)."""
        for variable in trainable_variables:
            if not variable.get("best_candidates"):
                seed = self.new_candidate(variable, variable.get_trainable_json(), operation="init")
                variable.update({"best_candidates": [seed], "current_candidate": seed["id"]})
                await context.emit("initial", {"variable": variable.name, "candidate": seed})
        self.built = True

    async def on_epoch_begin(
        self,
        epoch: int,
        trainable_variables: Sequence[Variable],
        context: TrainingContext = SILENT,
    ) -> None:
        for variable in trainable_variables:
            variable.update({"candidates": []})

    async def on_epoch_end(
        self,
        epoch: int,
        trainable_variables: Sequence[Variable],
        context: TrainingContext = SILENT,
    ) -> None:
        """Trim each population to the `population_size` best candidates; note the best.

        Each variable's ``history`` gets the best candidate's value (its
        trainable fields, no reward) unless it is already the last entry: the
        timeline of the values the variable held, epoch by epoch.
        """
        for variable in trainable_variables:
            population = sorted(
                variable.get("best_candidates") or [], key=candidate_sort_key, reverse=True
            )
            variable.update({"best_candidates": population[: self.population_size]})
            if population:
                record_history(variable, population[0]["value"])
            await context.emit(
                "population",
                {
                    "variable": variable.name,
                    "epoch": epoch,
                    "population": population,
                    "kept": [c["id"] for c in population[: self.population_size]],
                    "dropped": [c["id"] for c in population[self.population_size :]],
                },
            )
        self.epochs = epoch + 1

    # One step -------------------------------------------------------------------------------

    async def train_step(
        self,
        step: int,
        trainable_variables: Sequence[Variable],
        *,
        batch_reward: float,
        evaluate: Evaluate | Minibatch,
        batch_candidates: Mapping[str, str | None] | None = None,
        batch_rows: Sequence[tuple[int, float]] | None = None,
        context: TrainingContext = SILENT,
    ) -> None:
        """Credit the batch, propose, score and keep candidates, write the best ones.

        One step whole: `begin_step`, then its job's phases one after the other.

        Args:
            step: the global step number.
            trainable_variables: the variables to optimise.
            batch_reward: the mean reward of the batch just predicted.
            evaluate: scores trial values on a validation minibatch: a `Minibatch`
                (what `fit` gives), or ``async evaluate(trial) -> reward``.
            batch_candidates: the candidate id each variable used for that batch
                (default: each variable's current candidate); the batch reward is
                credited to them.
            batch_rows: each row of that batch as ``(row, reward)`` (default None);
                given, it is reported in a ``"batch_scored"`` event.
            context: the fit this step runs in (default: none, events dropped).
        """
        job = await self.begin_step(
            step,
            trainable_variables,
            batch_reward=batch_reward,
            evaluate=evaluate,
            batch_candidates=batch_candidates,
            batch_rows=batch_rows,
            context=context,
        )
        await job.run()

    async def begin_step(
        self,
        step: int,
        trainable_variables: Sequence[Variable],
        *,
        batch_reward: float,
        evaluate: Evaluate | Minibatch,
        batch_candidates: Mapping[str, str | None] | None = None,
        batch_rows: Sequence[tuple[int, float]] | None = None,
        context: TrainingContext = SILENT,
    ) -> StepJob:
        """Credit the batch just predicted and return the step's job (arguments: `train_step`).

        The job proposes, scores and keeps candidates when it is advanced (see
        `optimizers.steps.StepJob`).
        """
        used_by: dict[str, str] = {}
        for variable in trainable_variables:
            used = (batch_candidates or {}).get(variable.name, variable.get("current_candidate"))
            if used is not None:
                used_by[variable.name] = used
            for candidate in variable.get("best_candidates") or []:
                if candidate["id"] == used:
                    credit(candidate, batch_reward)
        if batch_rows and used_by:
            await context.emit(
                "batch_scored",
                {
                    "candidates": used_by,
                    "rows": [int(row) for row, _ in batch_rows],
                    "rewards": [float(reward) for _, reward in batch_rows],
                },
            )
        minibatch = evaluate if isinstance(evaluate, Minibatch) else FunctionMinibatch(evaluate)
        return StepJob(self, step, trainable_variables, minibatch, context)

    def incumbent(self, variable: Variable) -> JsonDict | None:
        """The candidate a proposal must beat to be written in: the population's best."""
        population = variable.get("best_candidates") or []
        if not population:
            return None
        best: JsonDict = max(population, key=candidate_sort_key)
        return best

    async def keep_scored(
        self,
        step: int,
        trainable_variables: Sequence[Variable],
        scored: list[ScoredProposal],
        context: TrainingContext = SILENT,
    ) -> None:
        """Add a step's scored proposals to their populations and write the best candidates."""
        for proposal in scored:
            variable = proposal.variable
            candidate = self.new_candidate(
                variable,
                proposal.value,
                parents=proposal.parents,
                operation=proposal.operation,
                step=step,
            )
            credit(candidate, proposal.reward)
            if proposal.rows:
                record_rows(candidate, proposal.rows, proposal.rewards)
            holder = self.add_to_population(variable, candidate)
            payload: JsonDict = {"variable": variable.name, "candidate": candidate}
            if proposal.rows:
                payload["rows"] = list(proposal.rows)
                payload["rewards"] = list(proposal.rewards)
            if holder is not candidate:
                payload["merged_into"] = holder["id"]
            if proposal.stopped_early:
                payload["stopped_early"] = True
            if proposal.incumbent is not None and proposal.incumbent_reward is not None:
                payload["incumbent"] = {
                    "id": proposal.incumbent,
                    "reward": proposal.incumbent_reward,
                    "rewards": list(proposal.incumbent_rewards),
                }
            await context.emit("candidate", payload)
        for variable in trainable_variables:
            self.write_best(variable)
        self.iterations += 1

    async def propose_candidates(
        self, step: int, trainable_variables: list[Variable], context: TrainingContext
    ) -> list[tuple[Variable, JsonDict, list[str], str]]:
        """Return ``(variable, new trainable value, parent ids, operation)`` proposals.

        `context` is the fit's (the program's description, where events go).
        """
        raise NotImplementedError

    # Candidates and populations -------------------------------------------------------------

    def new_candidate(
        self,
        variable: Variable,
        value: JsonDict,
        *,
        parents: Sequence[str] = (),
        operation: str,
        step: int | None = None,
    ) -> JsonDict:
        # Ids stay unique within the variable even when another optimizer (or an
        # earlier run) already numbered candidates in it.
        self._next_id = max(self._next_id, highest_candidate_number(variable)) + 1
        return {
            "id": f"{variable.name}#{self._next_id}",
            "value": copy.deepcopy(value),
            "reward": None,
            "nb_evaluations": 0,
            "parents": list(parents),
            "operation": operation,
            "epoch": self.epochs,
            "step": self.iterations if step is None else step,
        }

    def current_candidate(self, variable: Variable) -> JsonDict | None:
        wanted = variable.get("current_candidate")
        for candidate in variable.get("best_candidates") or []:
            if candidate["id"] == wanted:
                found: JsonDict = candidate
                return found
        return None

    def add_to_population(self, variable: Variable, candidate: JsonDict) -> JsonDict:
        """Add a scored candidate; an identical value merges into its twin's estimate.

        Returns the population member that now holds it: itself, or its twin.
        """
        population: list[JsonDict] = variable.get("best_candidates") or []
        key = value_key(candidate["value"])
        holder = candidate
        for existing in population:
            if value_key(existing["value"]) == key:
                for _ in range(candidate["nb_evaluations"]):
                    credit(existing, candidate["reward"])
                if candidate.get("row_rewards"):
                    existing["row_rewards"] = {
                        **(existing.get("row_rewards") or {}),
                        **candidate["row_rewards"],
                    }
                holder = existing
                break
        else:
            population.append(candidate)
        variable.update({"best_candidates": population})
        proposed: list[JsonDict] = variable.get("candidates") or []
        proposed.append(candidate)
        variable.update({"candidates": proposed})
        return holder

    def record_validation(
        self, trainable_variables: Sequence[Variable], rows: Sequence[int], rewards: Sequence[float]
    ) -> None:
        """Note each validation row's reward on the candidate each variable had in force.

        `fit` calls it after an epoch's validation pass; proposals are then compared
        with that candidate on those rows (see `optimizers.steps`).
        """
        for variable in trainable_variables:
            candidate = self.current_candidate(variable)
            if candidate is not None:
                record_rows(candidate, rows, rewards)

    def write_best(self, variable: Variable) -> None:
        population = variable.get("best_candidates") or []
        if not population:
            return
        best = max(population, key=candidate_sort_key)
        variable.assign(best["value"])
        variable.update({"current_candidate": best["id"]})

    def select_candidate(
        self,
        candidates: Sequence[JsonDict],
        *,
        selection: str = "softmax",
        temperature: float = 0.3,
    ) -> JsonDict:
        """Pick one of `candidates` (a parent): ``softmax`` over rewards, ``best`` or ``random``.

        ``softmax`` draws with probability ``exp(reward / temperature)`` (an unscored
        candidate counts as 0), from the optimizer's random generator.
        """
        if not candidates:
            raise ValueError("there is no candidate to select from")
        if selection == "random":
            return self.rng.choice(list(candidates))
        if selection == "best":
            return max(candidates, key=candidate_sort_key)
        weights = softmax([float(c.get("reward") or 0.0) for c in candidates], temperature)
        return self.rng.choices(list(candidates), weights=weights, k=1)[0]

    # State ----------------------------------------------------------------------------------

    def get_state(self) -> JsonDict:
        """Counters and the random generator's state.

        The populations live in the variables; `fit`'s own loop state is its
        `FitState`, saved beside this (``fit_state`` in `Program.to_json`).
        """
        version, internal, gauss = self.rng.getstate()
        state: JsonDict = {
            "iterations": self.iterations,
            "epochs": self.epochs,
            "next_id": self._next_id,
            "rng": [version, list(internal), gauss],
        }
        return state

    def set_state(self, state: JsonDict) -> None:
        self.iterations = int(state.get("iterations", 0))
        self.epochs = int(state.get("epochs", 0))
        self._next_id = int(state.get("next_id", 0))
        if state.get("rng"):
            version, internal, gauss = state["rng"]
            self.rng.setstate((version, tuple(internal), gauss))

    def get_config(self) -> JsonDict:
        return {"population_size": self.population_size, "seed": self.seed, "name": self.name}

    @classmethod
    def from_config(cls, config: JsonDict) -> Optimizer:
        return cls(**config)


# Helpers shared by optimizers -------------------------------------------------------------


def highest_candidate_number(variable: Variable) -> int:
    """The largest ``#n`` among the ids of a variable's candidates (0 when none)."""
    highest = 0
    for key in ("best_candidates", "candidates"):
        for candidate in variable.get(key) or []:
            _, _, number = str(candidate.get("id", "")).rpartition("#")
            if number.isdigit():
                highest = max(highest, int(number))
    return highest


def record_history(variable: Variable, value: JsonDict) -> None:
    """Append `value` to the variable's ``history`` unless it is the last entry already."""
    history: list[JsonDict] = list(variable.get("history") or [])
    if not history or history[-1] != value:
        history.append(copy.deepcopy(value))
        variable.update({"history": history})


def credit(candidate: JsonDict, reward: float) -> None:
    """Fold one more evaluation into a candidate's running mean reward."""
    n = int(candidate.get("nb_evaluations") or 0)
    previous = candidate.get("reward")
    mean = reward if previous is None or n == 0 else (previous * n + reward) / (n + 1)
    candidate["reward"] = float(mean)
    candidate["nb_evaluations"] = n + 1


def candidate_sort_key(candidate: JsonDict) -> tuple[float, int]:
    reward = candidate.get("reward")
    return (
        -math.inf if reward is None else float(reward),
        int(candidate.get("nb_evaluations") or 0),
    )


def value_key(value: JsonDict) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def softmax(values: Sequence[float], temperature: float) -> list[float]:
    if temperature <= 0:
        raise ValueError(f"`temperature` must be > 0, got {temperature}")
    if not values:
        return []
    top = max(values)
    exps = [math.exp((v - top) / temperature) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def weighted_sample_without_replacement(
    rng: random.Random, items: Sequence[Any], weights: Sequence[float], k: int
) -> list[Any]:
    """Draw ``k`` distinct items, each draw proportional to the remaining weights."""
    pool = list(zip(items, weights, strict=True))
    chosen: list[Any] = []
    for _ in range(min(k, len(pool))):
        total = sum(w for _, w in pool)
        if total <= 0:
            index = rng.randrange(len(pool))
        else:
            mark = rng.random() * total
            index = 0
            for index, (_, weight) in enumerate(pool):  # noqa: B007
                mark -= weight
                if mark <= 0:
                    break
        chosen.append(pool.pop(index)[0])
    return chosen
