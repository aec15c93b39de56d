"""OMEGA: evolve trainable variables with mutations and crossovers written by a language model."""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pydantic

from optimizer_core import language_models
from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.exceptions import LanguageModelError, SerializationError
from optimizer_core.language_models import EmbeddingModel, LanguageModel
from optimizer_core.modules.chain_of_thought import ChainOfThought
from optimizer_core.modules.generator import Generator
from optimizer_core.modules.module import TRACE
from optimizer_core.optimizers import dns
from optimizer_core.optimizers.context import SILENT, TrainingContext
from optimizer_core.optimizers.omega_prompts import (
    COMPACT_MIN_TEXT_CAP,
    COMPACT_TEXT_GROWTH,
    MIN_TEXT_CAP,
    CrossoverInputs,
    MutationInputs,
    ReviewedCrossoverInputs,
    ReviewedMutationInputs,
    capped_answer,
    compact_crossover_instructions,
    compact_inputs,
    compact_mutation_instructions,
    crossover_instructions,
    mistakes,
    mutation_instructions,
    shown_predictions,
    submodel,
    text_cap,
    variable_model,
)
from optimizer_core.optimizers.optimizer import candidate_sort_key, softmax, value_key
from optimizer_core.optimizers.random_few_shot import RandomFewShot
from optimizer_core.saving.object_registry import FUNCTION, deserialize_object, serialize_object
from optimizer_core.saving.params import Param
from optimizer_core.variables import Variable

logger = logging.getLogger("optimizer_core")

DistanceFunction = Callable[..., Awaitable[float]]
"""``async fn(value_1, value_2, embedding_model=..., **kwargs) -> float``."""

ALGORITHMS = ("dns", "ga")
SELECTIONS = ("softmax", "best", "random")
PROMPTS = ("auto", "full", "compact")


class OMEGA(RandomFewShot):
    """OptiMizEr as Genetic Algorithm: evolve trainable variables with LM-written variations.

    Each training step OMEGA picks one trainable variable, favouring the one
    whose predictions earn the least (a variable it has never picked goes
    first; then probability ∝ ``exp(-avg_reward / selection_temperature)``,
    where ``avg_reward = cumulative_reward / nb_visit``), and proposes one new
    value for it:

    - **mutation**: a parent chosen by `selection` is rewritten by a
      ChainOfThought program that sees the program's description, the
      variable, `instructions`, and the best and worst recent predictions;
    - **crossover**, with probability ``min(1, merging_rate * epoch)``: two
      distinct parents chosen by `selection` are merged by a second
      ChainOfThought program (mutation when the population has one candidate).

    The language model writes the variable's trainable fields and its answer is
    validated against the variable's schema (its ``data_model``; a variable
    without one gets a schema inferred from its value). A field named
    ``examples`` is not written by the model: with `few_shot_learning` it is
    re-sampled from the scored predictions as `RandomFewShot` does, otherwise
    the parent's examples are kept. An answer that still fails after the
    language model's retries is skipped with a warning and training goes on.

    In `fit`, a step's mutation or crossover call runs while the next batch is
    predicted, and its proposal is scored in the rounds after, beside the batches
    after that (`proposals_take_a_round`; see `optimizers.steps`): a step costs one
    round of LM latency, and a proposal sees the populations as the steps settled
    two or three batches before it.

    At each epoch end the populations compete (`algorithm="dns"`): Dominated
    Novelty Search scores every candidate by its mean distance to its
    `k_nearest_fitter` nearest strictly fitter candidates (1.0 when none is
    fitter), keeps those at or above the median score (and every candidate
    nothing beats), then the `population_size` best by reward. The default
    distance is the cosine distance between embeddings of the candidates'
    trainable fields; embeddings are cached, so each value is embedded once.
    `algorithm="ga"` keeps the `population_size` best by reward.

    Observers get the base optimizer's events through callbacks'
    ``on_optimizer_event`` (see `optimizer_core.optimizers.optimizer`):
    ``"candidate"`` after each scored proposal (with its parents, operation and
    the rows it was scored on) and ``"population"`` after each competition
    (every candidate with its ``score`` and ``kept`` flag), plus
    ``"proposal_skipped"``; `optimizer_core.optimizers.lineage` rebuilds each
    variable's DAG of candidates from them.

    The program's description reaches the mutation and crossover programs through
    the fit's `TrainingContext` (`optimizers.context`), passed to each step.

    Args:
        language_model: the `LanguageModel` that writes mutations and crossovers (required).
        embedding_model: the `EmbeddingModel` behind the default DNS distance (required).
        k_nearest_fitter: fitter neighbours averaged by DNS (default 5, >= 1).
        distance_function: ``async fn(value_1, value_2, embedding_model=..., **kwargs)``
            returning the distance between two candidates' trainable values
            (default: cosine distance of their embeddings). Register it with
            ``saving.register_synalinks_serializable()`` to save the optimizer.
        mutation_temperature: sampling temperature of the mutation program (default 0.3, > 0).
        crossover_temperature: sampling temperature of the crossover program (default 0.3, > 0).
        selection_temperature: softmax temperature of parent and variable selection
            (default 0.3, > 0).
        sampling_temperature: softmax temperature of few-shot example sampling (default 0.3, > 0).
        few_shot_learning: re-sample ``examples`` in every proposal (default False).
        labelled_examples: sampled examples show training rows' expected outputs where
            the module answers the program's output (default True; see `RandomFewShot`).
        nb_min_examples: fewest examples when sampling (default 1).
        nb_max_examples: most examples when sampling (default 3).
        merging_rate: crossover probability per epoch, in [0, 1] (default 0.02).
        population_size: candidates kept per variable (default 10, >= 2).
        algorithm: ``"dns"`` (default) or ``"ga"`` (no novelty competition).
        selection: parent selection, ``"softmax"`` (default), ``"best"`` or ``"random"``.
        prompts: ``"full"`` (the prompt above, answered by a ChainOfThought),
            ``"compact"`` (a short prompt showing the worst predictions as mistakes with
            their expected answers, answered without thinking: what a 135M model can
            follow, see `omega_prompts`) or ``"auto"`` (default: compact when the
            language model's ``compact_prompts`` says so, as the bundled model's does).
        use_feedback: show the reward's feedback on the worst predictions (and, in the
            compact prompts, their reward) in the mutation and crossover prompts, as GEPA's
            reflective mutation does (default True; see `omega_prompts`).
        instructions: task-specific guidance for the mutation and crossover programs.
        seed: random seed (default None).
        name: a name for logs.
        description: what the optimizer is for (kept in its config; default None).

    Example:
        ```python
        optimizer = OMEGA(
            language_model=LanguageModel(model="openai/gpt-4o-mini"),
            embedding_model=EmbeddingModel(model="openai/text-embedding-3-small"),
            population_size=20,
            instructions="Focus on edge cases and robustness",
        )
        program.compile(reward=ExactMatch(in_mask=["answer"]), optimizer=optimizer)
        ```

    References:
        - Bahlous-Boldi et al., "Dominated Novelty Search: Rethinking Local
          Competition in Quality-Diversity" (2025), https://arxiv.org/abs/2502.00593
        - Agrawal et al., "GEPA: Reflective Prompt Evolution Can Outperform
          Reinforcement Learning" (2025), https://arxiv.org/abs/2507.19457
    """

    needs = frozenset({"language_model", "embedding_model"})
    proposals_take_a_round = True
    user_params = (
        Param(
            "k_nearest_fitter",
            "fitter neighbours Dominated Novelty Search measures novelty against",
            label="k nearest fitter",
            minimum=1,
        ),
        Param("distance_function", "the distance between two candidates (code)", offered=False),
        Param(
            "mutation_temperature",
            "sampling temperature of the mutation program",
            minimum=0,
            exclusive_minimum=True,
        ),
        Param(
            "crossover_temperature",
            "sampling temperature of the crossover program",
            minimum=0,
            exclusive_minimum=True,
        ),
        Param(
            "selection_temperature",
            "softmax temperature of parent and variable selection",
            minimum=0,
            exclusive_minimum=True,
        ),
        Param("merging_rate", "crossover probability added per epoch", minimum=0, maximum=1),
        Param(
            "algorithm",
            "dns: Dominated Novelty Search at each epoch end; ga: keep the best by reward",
            choices=ALGORITHMS,
        ),
        Param("selection", "how parents are chosen from the population", choices=SELECTIONS),
        Param(
            "prompts",
            "full: the GEPA-style prompt with thinking; compact: a short one a small model "
            "can follow; auto: compact for a model that asks for it (the bundled one)",
            label="Mutation prompts",
            choices=PROMPTS,
        ),
        Param(
            "use_feedback",
            "show the reward's feedback on the worst predictions in the mutation and "
            "crossover prompts",
            label="Show reward feedback",
        ),
        Param(
            "instructions",
            "task-specific guidance for the mutation and crossover programs",
            label="Optimizer instructions",
        ),
        Param("description", "what the optimizer is for", offered=False),
    )

    def __init__(
        self,
        *,
        language_model: Any = None,
        embedding_model: Any = None,
        k_nearest_fitter: int = 5,
        distance_function: DistanceFunction | None = None,
        mutation_temperature: float = 0.3,
        crossover_temperature: float = 0.3,
        selection_temperature: float = 0.3,
        sampling_temperature: float = 0.3,
        few_shot_learning: bool = False,
        labelled_examples: bool = True,
        nb_min_examples: int = 1,
        nb_max_examples: int = 3,
        merging_rate: float = 0.02,
        population_size: int = 10,
        algorithm: str = "dns",
        selection: str = "softmax",
        prompts: str = "auto",
        use_feedback: bool = True,
        instructions: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        if description is not None and not isinstance(description, str):
            raise TypeError(f"`description` must be a string, got {type(description).__name__}")
        if language_model is None:
            raise ValueError(
                "`language_model` is required: OMEGA's mutations and crossovers are "
                "written by it (e.g. LanguageModel(model='openai/gpt-4o-mini'))"
            )
        if embedding_model is None:
            raise ValueError(
                "`embedding_model` is required: Dominated Novelty Search measures how "
                "different candidates are with it "
                "(e.g. EmbeddingModel(model='openai/text-embedding-3-small'))"
            )
        if not isinstance(language_model, LanguageModel):
            raise TypeError(
                f"`language_model` must be a LanguageModel, got {type(language_model).__name__}"
            )
        if not isinstance(embedding_model, EmbeddingModel):
            raise TypeError(
                f"`embedding_model` must be an EmbeddingModel, got {type(embedding_model).__name__}"
            )
        if distance_function is not None and not _is_async_callable(distance_function):
            raise TypeError(
                "`distance_function` must be an async function "
                "(async def distance(c1, c2, embedding_model=None, **kwargs)), "
                f"got {distance_function!r}"
            )
        # Every range, choice and type its `user_params` declare (temperatures > 0,
        # merging_rate in [0, 1], k_nearest_fitter >= 1, algorithm, selection...).
        self.check_settings(locals())
        super().__init__(
            few_shot_learning=few_shot_learning,
            labelled_examples=labelled_examples,
            nb_min_examples=nb_min_examples,
            nb_max_examples=nb_max_examples,
            sampling_temperature=sampling_temperature,
            population_size=population_size,
            seed=seed,
            name=name,
        )
        self.language_model: LanguageModel = language_model
        self.embedding_model: EmbeddingModel = embedding_model
        self.k_nearest_fitter = k_nearest_fitter
        self.distance_function = distance_function
        self.mutation_temperature = float(mutation_temperature)
        self.crossover_temperature = float(crossover_temperature)
        self.selection_temperature = float(selection_temperature)
        self.merging_rate = float(merging_rate)
        self.algorithm = algorithm
        self.description = description
        self.selection = selection
        self.prompts = prompts
        self.use_feedback = use_feedback
        self.instructions = instructions
        self.selections: dict[str, int] = {}
        self.operations: dict[str, int] = {
            "mutation": 0,
            "crossover": 0,
            "failed": 0,
            "unchanged": 0,
        }
        self.last_competition: dict[str, list[JsonDict]] = {}
        self._embeddings: dict[str, list[float]] = {}
        self._programs: dict[str, Generator] = {}

    # Selection ------------------------------------------------------------------------------

    def select_variable(self, trainable_variables: Sequence[Variable]) -> Variable:
        """The variable to work on this step, favouring the worst-performing one.

        A variable OMEGA has never picked, or whose module has never been scored,
        comes first (in program order). Otherwise the probability of a variable is
        proportional to ``exp(-avg_reward / selection_temperature)``; a variable
        still unscored after being picked counts as ``avg_reward = 0``.
        """
        if not trainable_variables:
            raise ValueError("there is no trainable variable to select")
        for variable in trainable_variables:
            if self.selections.get(variable.name, 0) == 0:
                return variable
        weights = softmax(
            [-average_reward(v) for v in trainable_variables], self.selection_temperature
        )
        return self.rng.choices(list(trainable_variables), weights=weights, k=1)[0]

    def select_parents(self, variable: Variable, count: int = 1) -> list[JsonDict]:
        """``count`` distinct candidates of the population, each drawn by `selection`."""
        population: list[JsonDict] = list(variable.get("best_candidates") or [])
        chosen: list[JsonDict] = []
        for _ in range(min(count, len(population))):
            taken = {c["id"] for c in chosen}
            pool = [c for c in population if c["id"] not in taken]
            chosen.append(
                self.select_candidate(
                    pool, selection=self.selection, temperature=self.selection_temperature
                )
            )
        return chosen

    @property
    def crossover_probability(self) -> float:
        """``min(1, merging_rate * epoch)``: 0 in the first epoch, growing after."""
        return min(1.0, self.merging_rate * self.epochs)

    def choose_operation(self, variable: Variable) -> str:
        """``"crossover"`` with `crossover_probability` given two parents, else ``"mutation"``."""
        draw = self.rng.random()
        population = variable.get("best_candidates") or []
        if draw < self.crossover_probability and len(population) >= 2:
            return "crossover"
        return "mutation"

    # Proposals ------------------------------------------------------------------------------

    async def propose_candidates(
        self, step: int, trainable_variables: list[Variable], context: TrainingContext
    ) -> list[tuple[Variable, JsonDict, list[str], str]]:
        if not trainable_variables:
            return []
        variable = self.select_variable(trainable_variables)
        self.selections[variable.name] = self.selections.get(variable.name, 0) + 1
        operation = self.choose_operation(variable)
        parents = self.select_parents(variable, 2 if operation == "crossover" else 1)
        if not parents:
            return []
        value = await self._vary(variable, operation, parents, step, context)
        if value is None:
            self.operations["failed"] += 1
            return []
        if any(value == parent["value"] for parent in parents):
            # A small model often copies its parent back: scoring that again would spend
            # a round of LM calls on a value the population already holds.
            self.operations["unchanged"] += 1
            await self._skip(
                context, variable, operation, step, "the answer is its parent unchanged"
            )
            return []
        self.operations[operation] += 1
        return [(variable, value, [p["id"] for p in parents], operation)]

    async def _vary(
        self,
        variable: Variable,
        operation: str,
        parents: list[JsonDict],
        step: int,
        context: TrainingContext,
    ) -> JsonDict | None:
        """The new trainable value, or None (with a warning) when the LM gave nothing valid."""
        full_model = variable_model(variable)
        written = [k for k in full_model.model_fields if k != "examples"]
        base: JsonDict = dict(parents[0]["value"])
        if not written and not self.few_shot_learning:
            return None
        # Drawn before the LM call: a step reads the optimizer's state (its random
        # generator, the predictions) before its first await, so what it draws does
        # not depend on when the answer comes (see `optimizers.steps`).
        examples = None
        if "examples" in full_model.model_fields and self.few_shot_learning:
            examples = self.sample_examples(variable)
        if written:
            output = await self._ask(
                variable, operation, parents, full_model, written, context.description
            )
            if output is None:
                await self._skip(
                    context,
                    variable,
                    operation,
                    step,
                    "the language model gave no valid answer after its retries",
                )
                return None
            base.update({k: output[k] for k in written if k in output})
        if examples is not None:
            base["examples"] = examples
        try:
            return full_model.model_validate(base).get_json()
        except pydantic.ValidationError as error:
            await self._skip(context, variable, operation, step, f"invalid value: {error}")
            return None

    async def _ask(
        self,
        variable: Variable,
        operation: str,
        parents: list[JsonDict],
        full_model: type[DataModel],
        written: list[str],
        description: str,
    ) -> JsonDict | None:
        program = self._program_for(operation, full_model, written, parents)
        current = {k: parents[0]["value"].get(k) for k in written}
        other = {k: parents[-1]["value"].get(k) for k in written}
        inputs: DataModel | JsonDict
        if self.compact_prompts:
            inputs = compact_inputs(
                current,
                mistakes(variable, feedback=self.use_feedback),
                task=description,
                guidance=self.instructions or "",
                other=other if operation == "crossover" else None,
            )
        else:
            best, worst = shown_predictions(variable, feedback=self.use_feedback)
            fields: JsonDict = {
                "program_description": description,
                "variable_name": variable.name,
                "guidance": self.instructions or "",
                "current_variable": current,
                "best_predictions": best,
                "worst_predictions": worst,
            }
            if operation == "crossover":
                crossover = ReviewedCrossoverInputs if self.use_feedback else CrossoverInputs
                inputs = crossover(**fields, other_variable=other)
            else:
                inputs = (ReviewedMutationInputs if self.use_feedback else MutationInputs)(**fields)
        # The optimizer's own calls must not land in a training trace.
        token = TRACE.set(None)
        try:
            output = await program(inputs)
        except LanguageModelError:
            output = None
        finally:
            TRACE.reset(token)
        if output is None:
            return None
        result: JsonDict = output.get_json()
        return result

    async def _skip(
        self, context: TrainingContext, variable: Variable, operation: str, step: int, reason: str
    ) -> None:
        logger.warning(
            "OMEGA %s of variable %r skipped at step %d: %s", operation, variable.name, step, reason
        )
        await context.emit(
            "proposal_skipped",
            {"variable": variable.name, "operation": operation, "step": step, "reason": reason},
        )

    def _program_for(
        self,
        operation: str,
        full_model: type[DataModel],
        written: list[str],
        parents: Sequence[JsonDict] = (),
    ) -> Generator:
        """The mutation or crossover module for a variable schema and length cap, built once.

        A ChainOfThought called on `MutationInputs` / `CrossoverInputs` directly
        (a Program around one module would make the same call); with compact prompts
        a Generator without thinking on `compact_inputs`. Its answer's text fields are capped
        (`capped_answer`, `text_cap`).
        """
        compact = self.compact_prompts
        whole = written == list(full_model.model_fields)
        if compact:
            cap = text_cap(parents, COMPACT_MIN_TEXT_CAP, growth=COMPACT_TEXT_GROWTH)
        else:
            cap = text_cap(parents, MIN_TEXT_CAP)
        output_model = capped_answer(
            full_model if whole else submodel(full_model, written), cap, thinking=not compact
        )
        key = operation + json.dumps(output_model.model_json_schema(), sort_keys=True)
        if key in self._programs:
            return self._programs[key]
        crossover = operation == "crossover"
        if compact:
            instructions = (
                compact_crossover_instructions if crossover else compact_mutation_instructions
            )(written, feedback=self.use_feedback)
        else:
            instructions = (crossover_instructions if crossover else mutation_instructions)(
                written, feedback=self.use_feedback
            )
        # The full prompts' answer already leads with its (capped) thinking field.
        program = (Generator if compact else ChainOfThought)(
            data_model=output_model,
            language_model=self.language_model,
            instructions=instructions,
            temperature=self.crossover_temperature if crossover else self.mutation_temperature,
            name=f"omega_{operation}_{len(self._programs)}",
        )
        self._programs[key] = program
        return program

    @property
    def compact_prompts(self) -> bool:
        """Whether mutations and crossovers use the compact prompts (see `prompts`)."""
        if self.prompts == "auto":
            return bool(getattr(self.language_model, "compact_prompts", False))
        return self.prompts == "compact"

    # Competition ----------------------------------------------------------------------------

    async def on_epoch_end(
        self,
        epoch: int,
        trainable_variables: Sequence[Variable],
        context: TrainingContext = SILENT,
    ) -> None:
        """Run the competition on each population (DNS, or reward only for ``"ga"``)."""
        use_dns = self.algorithm == "dns"
        if use_dns and self.distance_function is None:
            try:
                await self._embed_missing(trainable_variables)
            except LanguageModelError as error:
                logger.warning(
                    "OMEGA could not embed the candidates (%s); this epoch's competition "
                    "keeps the best by reward only",
                    error,
                )
                use_dns = False
        kept_keys: set[str] = set()
        for variable in trainable_variables:
            population: list[JsonDict] = list(variable.get("best_candidates") or [])
            fitness = [_fitness(c) for c in population]
            scores: list[float | None] = [None] * len(population)
            eligible = set(range(len(population)))
            if use_dns and len(population) > 1:
                dns_scores = await self._scores(population, fitness)
                eligible = set(dns.survivors(fitness, dns_scores))
                scores = list(dns_scores)
            ranked = sorted(eligible, key=lambda i: candidate_sort_key(population[i]), reverse=True)
            kept = set(ranked[: self.population_size])
            survivors = [population[i] for i in ranked[: self.population_size]]
            variable.update({"best_candidates": survivors})
            self.write_best(variable)
            kept_keys.update(_value_hash(c["value"]) for c in survivors)
            report = [
                {**c, "score": scores[i], "kept": i in kept} for i, c in enumerate(population)
            ]
            self.last_competition[variable.name] = [
                {"id": r["id"], "reward": r["reward"], "score": r["score"], "kept": r["kept"]}
                for r in report
            ]
            await context.emit(
                "population",
                {
                    "variable": variable.name,
                    "epoch": epoch,
                    "algorithm": "dns" if use_dns else "ga",
                    "population": report,
                    "kept": [c["id"] for c in survivors],
                    "dropped": [c["id"] for i, c in enumerate(population) if i not in kept],
                },
            )
        self._embeddings = {k: v for k, v in self._embeddings.items() if k in kept_keys}
        self.epochs = epoch + 1

    async def _embed_missing(self, trainable_variables: Sequence[Variable]) -> None:
        """Embed, in one call, every candidate value not embedded yet."""
        missing: dict[str, str] = {}
        for variable in trainable_variables:
            population = variable.get("best_candidates") or []
            if len(population) < 2:
                continue  # nothing to compete with
            for candidate in population:
                key = _value_hash(candidate["value"])
                if key not in self._embeddings:
                    missing[key] = value_key(candidate["value"])
        if not missing:
            return
        vectors = await self.embedding_model(list(missing.values()))
        self._embeddings.update(zip(missing, vectors, strict=True))

    async def _scores(self, population: list[JsonDict], fitness: list[float]) -> list[float]:
        pairs = dns.fitter_pairs(fitness)
        if self.distance_function is None:
            vectors = [self._embeddings[_value_hash(c["value"])] for c in population]
            values = [dns.cosine_distance(vectors[i], vectors[j]) for i, j in pairs]
        else:
            function = self.distance_function
            values = list(
                await asyncio.gather(
                    *(
                        function(
                            population[i]["value"],
                            population[j]["value"],
                            embedding_model=self.embedding_model,
                        )
                        for i, j in pairs
                    )
                )
            )
        table: dict[tuple[int, int], float] = {}
        for (i, j), value in zip(pairs, values, strict=True):
            table[(i, j)] = table[(j, i)] = float(value)
        return dns.dominated_novelty_scores(
            fitness, lambda i, j: table[(i, j)], self.k_nearest_fitter
        )

    # State and config -----------------------------------------------------------------------

    def get_state(self) -> JsonDict:
        """Counters, the random state, selection counts and the last competition's scores."""
        return {
            **super().get_state(),
            "selections": dict(self.selections),
            "operations": dict(self.operations),
            "last_competition": json.loads(json.dumps(self.last_competition)),
        }

    def set_state(self, state: JsonDict) -> None:
        super().set_state(state)
        self.selections = {str(k): int(v) for k, v in (state.get("selections") or {}).items()}
        self.operations = {"mutation": 0, "crossover": 0, "failed": 0, "unchanged": 0}
        self.operations.update({str(k): int(v) for k, v in (state.get("operations") or {}).items()})
        self.last_competition = json.loads(json.dumps(state.get("last_competition") or {}))

    def get_config(self) -> JsonDict:
        distance: JsonDict | None = None
        if self.distance_function is not None:
            try:
                distance = serialize_object(self.distance_function)
            except SerializationError as error:
                raise SerializationError(
                    f"cannot save OMEGA's `distance_function`: {error}"
                ) from error
        return {
            **super().get_config(),
            "language_model": serialize_object(self.language_model),
            "embedding_model": serialize_object(self.embedding_model),
            "k_nearest_fitter": self.k_nearest_fitter,
            "distance_function": distance,
            "mutation_temperature": self.mutation_temperature,
            "crossover_temperature": self.crossover_temperature,
            "selection_temperature": self.selection_temperature,
            "merging_rate": self.merging_rate,
            "algorithm": self.algorithm,
            "selection": self.selection,
            "prompts": self.prompts,
            "use_feedback": self.use_feedback,
            "instructions": self.instructions,
            "description": self.description,
        }

    @classmethod
    def from_config(cls, config: JsonDict) -> OMEGA:
        config = dict(config)
        for key in ("language_model", "embedding_model"):
            if isinstance(config.get(key), dict):
                config[key] = language_models.deserialize(config[key])
        if isinstance(config.get("distance_function"), dict):
            config["distance_function"] = deserialize_object(
                config["distance_function"], slot=FUNCTION
            )
        return cls(**config)


# Helpers ------------------------------------------------------------------------------------


def average_reward(variable: Variable) -> float:
    """``cumulative_reward / nb_visit`` of a variable (0.0 before any visit)."""
    visits = int(variable.get("nb_visit") or 0)
    if visits <= 0:
        return 0.0
    return float(variable.get("cumulative_reward") or 0.0) / visits


def _fitness(candidate: JsonDict) -> float:
    reward = candidate.get("reward")
    return float("-inf") if reward is None else float(reward)


def _value_hash(value: JsonDict) -> str:
    return hashlib.sha256(value_key(value).encode("utf-8")).hexdigest()


def _is_async_callable(function: Any) -> bool:
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004 - async callable objects count too
    return call is not None and inspect.iscoroutinefunction(call)
