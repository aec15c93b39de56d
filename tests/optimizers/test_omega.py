"""OMEGA: mutation and crossover through ChainOfThought, selection, DNS, state, events, config."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import logging
import math
from typing import Any

import numpy as np
import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import InvalidResponseError, SerializationError
from optimizer_core.modules.generator import GeneratorState
from optimizer_core.modules.module import TRACE, Module, SymbolicDataModel
from optimizer_core.optimizers import OMEGA, TrainingContext
from optimizer_core.optimizers.optimizer import credit, softmax, value_key
from optimizer_core.saving import register_synalinks_serializable
from optimizer_core.testing.scripted_server import ScriptedServer, default_responder
from optimizer_core.testing.students import capitals_task
from optimizer_core.variables import Variable
from tests.support import Answer, Query, build_program, capitals

# Models and helpers -------------------------------------------------------------------------


class Plan(synalinks.DataModel):
    """A custom trainable JSON: not instructions, not examples."""

    plan: str = synalinks.Field(description="What to do")
    steps: list[str] = synalinks.Field(description="Transformations, in order")


class Point(synalinks.DataModel):
    x: float


@register_synalinks_serializable(package="OmegaTests")
async def line_distance(c1: Any, c2: Any, embedding_model: Any = None, **kwargs: Any) -> float:
    return abs(float(c1["x"]) - float(c2["x"]))


def omega(**kwargs: Any) -> OMEGA:
    kwargs.setdefault("language_model", synalinks.FakeLanguageModel())
    kwargs.setdefault("embedding_model", synalinks.FakeEmbeddingModel())
    kwargs.setdefault("seed", 0)
    return OMEGA(**kwargs)


def populate(optimizer: OMEGA, variable: Variable, rewards_and_values: list[tuple[float, Any]]):
    """Give a variable a hand-built population (rewards are single evaluations)."""
    population = []
    for reward, value in rewards_and_values:
        candidate = optimizer.new_candidate(variable, value, operation="init")
        credit(candidate, reward)
        population.append(candidate)
    variable.update({"best_candidates": population, "current_candidate": population[0]["id"]})
    return population


def rewriting_lm() -> synalinks.FakeLanguageModel:
    """A mutation model that writes new instructions each time."""
    counter = itertools.count()

    def responder(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        n = next(counter)
        return {"thinking": "", "instructions": f"Answer with the bare name, rule {n}."}

    return synalinks.FakeLanguageModel(responder=responder)


def generator_variable(predictions: list[dict[str, Any]] | None = None) -> Variable:
    variable = Variable(
        name="answerer/state",
        initial_value={"instructions": "Answer.", "examples": []},
        data_model=GeneratorState,
    )
    variable.update({"predictions": predictions or []})
    return variable


def plan_variable(name: str = "planner/state") -> Variable:
    return Variable(name=name, initial_value={"plan": "echo", "steps": []}, data_model=Plan)


def point_variable() -> Variable:
    return Variable(name="point/state", initial_value={"x": 0.0}, data_model=Point)


def user_json(call: Any) -> dict[str, Any]:
    return json.loads(next(m["content"] for m in call.messages if m["role"] == "user"))


def system_text(call: Any) -> str:
    return next(m["content"] for m in call.messages if m["role"] == "system")


async def zero(trial: dict[str, Any]) -> float:
    return 0.0


class Recorder(synalinks.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> None:
        self.events.append((event, payload or {}))


# Construction -------------------------------------------------------------------------------


def sync_distance(c1: Any, c2: Any, embedding_model: Any = None) -> float:
    return 0.0


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"embedding_model": None}, "embedding_model"),
        ({"language_model": None}, "language_model"),
        ({"mutation_temperature": 0.0}, "mutation_temperature"),
        ({"crossover_temperature": -1.0}, "crossover_temperature"),
        ({"selection_temperature": 0}, "selection_temperature"),
        ({"sampling_temperature": 0.0}, "sampling_temperature"),
        ({"distance_function": sync_distance}, "distance_function"),
        ({"population_size": 1}, "population_size"),
        ({"algorithm": "nsga"}, "algorithm"),
        ({"selection": "tournament"}, "selection"),
        ({"prompts": "tiny"}, "prompts"),
        ({"merging_rate": 1.5}, "merging_rate"),
        ({"merging_rate": -0.1}, "merging_rate"),
        ({"k_nearest_fitter": 0}, "k_nearest_fitter"),
        ({"nb_min_examples": 3, "nb_max_examples": 1}, "nb_max_examples"),
        ({"language_model": "gpt-4o"}, "language_model"),
    ],
)
def test_each_bad_argument_is_named(kwargs: dict[str, Any], argument: str) -> None:
    with pytest.raises((ValueError, TypeError), match=f"`{argument}`"):
        omega(**kwargs)


def test_missing_embedding_model_says_it_is_required() -> None:
    with pytest.raises(ValueError, match="`embedding_model` is required"):
        OMEGA(language_model=synalinks.FakeLanguageModel())


def test_guide_defaults() -> None:
    optimizer = omega()
    config = optimizer.get_config()
    assert {k: config[k] for k in config if k not in ("language_model", "embedding_model")} == {
        "population_size": 10, "seed": 0, "name": "omega", "few_shot_learning": False,
        "labelled_examples": True,
        "nb_min_examples": 1, "nb_max_examples": 3, "sampling_temperature": 0.3,
        "k_nearest_fitter": 5, "distance_function": None, "mutation_temperature": 0.3,
        "crossover_temperature": 0.3, "selection_temperature": 0.3, "merging_rate": 0.02,
        "algorithm": "dns", "selection": "softmax", "prompts": "auto", "use_feedback": True,
            "instructions": None,
        "description": None,
    }  # fmt: skip


def test_config_round_trip_and_lookup() -> None:
    optimizer = omega(
        language_model=synalinks.FakeLanguageModel(responses=[{"instructions": "x"}]),
        distance_function=line_distance,
        k_nearest_fitter=3,
        merging_rate=0.1,
        algorithm="ga",
        selection="best",
        instructions="Focus on edge cases",
        few_shot_learning=True,
        description="Rewrites the answer instructions",
    )
    config = synalinks.optimizers.serialize(optimizer)
    json.dumps(config)
    again = synalinks.optimizers.deserialize(config)
    assert isinstance(again, OMEGA)
    assert again.get_config() == optimizer.get_config()
    assert again.distance_function is line_distance
    assert again.description == "Rewrites the answer instructions"
    assert again.get_config()["description"] == "Rewrites the answer instructions"
    assert isinstance(again.embedding_model, synalinks.FakeEmbeddingModel)
    assert synalinks.optimizers.get(optimizer) is optimizer
    with pytest.raises(ValueError, match="`language_model` is required"):
        synalinks.optimizers.get("omega")


def test_a_description_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(TypeError, match="`description` must be a string"):
        omega(description=3)


def test_an_unregistered_distance_function_cannot_be_saved() -> None:
    async def local_distance(c1: Any, c2: Any, embedding_model: Any = None) -> float:
        return 0.0

    optimizer = omega(distance_function=local_distance)
    with pytest.raises(SerializationError, match="`distance_function`"):
        optimizer.get_config()


# Mutation -----------------------------------------------------------------------------------


async def test_mutation_sees_the_program_variable_guidance_and_scored_predictions() -> None:
    predictions = [
        {"inputs": {"q": str(i)}, "outputs": {"a": str(i)}, "reward": r}
        for i, r in enumerate([0.0, 1.0, 0.5, 0.25, 0.75, 0.1, 0.9])
    ]
    predictions[0]["ground_truth"] = {"a": "zero"}
    variable = generator_variable(predictions)
    lm = synalinks.FakeLanguageModel(responses=[{"thinking": "t", "instructions": "Better."}])
    optimizer = omega(
        language_model=lm, instructions="Focus on edge cases", mutation_temperature=0.7
    )
    context = TrainingContext(description="Answer trivia questions")
    await optimizer.build([variable], context)
    await optimizer.train_step(0, [variable], batch_reward=0.2, evaluate=zero, context=context)

    (call,) = lm.calls
    shown = user_json(call)
    assert shown["program_description"] == "Answer trivia questions"
    assert shown["guidance"] == "Focus on edge cases"
    assert shown["variable_name"] == "answerer/state"
    assert shown["current_variable"] == {"instructions": "Answer."}
    assert [p["reward"] for p in shown["best_predictions"]] == [1.0, 0.9, 0.75]
    assert [p["reward"] for p in shown["worst_predictions"]] == [0.0, 0.1, 0.25]
    assert shown["worst_predictions"][0]["ground_truth"] == {"a": "zero"}
    assert call.temperature == 0.7
    # The model writes the trainable fields (examples are not its job), thinking first.
    assert list(call.schema["properties"]) == ["thinking", "instructions"]
    assert '["instructions"]' in system_text(call)
    population = variable.get("best_candidates")
    assert population[-1]["value"] == {"instructions": "Better.", "examples": []}
    assert population[-1]["operation"] == "mutation"
    assert population[-1]["parents"] == [population[0]["id"]]


async def test_invalid_output_is_retried_against_the_schema() -> None:
    variable = plan_variable()
    lm = synalinks.FakeLanguageModel(
        responses=[
            {"thinking": "t", "plan": "upper", "steps": "upper"},  # steps must be a list
            {"thinking": "t", "plan": "upper", "steps": ["upper"]},
        ]
    )
    optimizer = omega(language_model=lm)
    await optimizer.build([variable])
    await optimizer.train_step(0, [variable], batch_reward=0.0, evaluate=zero)
    assert len(lm.calls) == 2 and lm.usage.retries == 1
    assert list(lm.calls[0].schema["properties"]) == ["thinking", "plan", "steps"]
    assert variable.get("best_candidates")[-1]["value"] == {"plan": "upper", "steps": ["upper"]}


async def test_output_still_invalid_after_retries_is_skipped_and_training_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    variable = plan_variable()
    lm = synalinks.FakeLanguageModel(
        responses=[
            {"thinking": "t", "plan": 3},
            "not json",
            {"thinking": "t", "plan": "upper", "steps": ["upper"]},
        ],
        max_retries=1,
    )
    optimizer = omega(language_model=lm)
    await optimizer.build([variable])
    with caplog.at_level(logging.WARNING, logger="optimizer_core"):
        await optimizer.train_step(0, [variable], batch_reward=0.0, evaluate=zero)
    assert len(variable.get("best_candidates")) == 1, "the failed proposal was not added"
    assert any("planner/state" in r.getMessage() and "skipped" in r.getMessage()
               for r in caplog.records)  # fmt: skip
    await optimizer.train_step(1, [variable], batch_reward=0.0, evaluate=zero)
    assert variable.get("best_candidates")[-1]["value"]["steps"] == ["upper"]
    assert optimizer.operations == {"mutation": 1, "crossover": 0, "failed": 1, "unchanged": 0}


async def test_a_failing_language_model_does_not_stop_training(
    caplog: pytest.LogCaptureFixture,
) -> None:
    x, y, student = capitals(12)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    down = synalinks.FakeLanguageModel(
        responses=[InvalidResponseError("down")], cycle=True, max_retries=0
    )
    program.compile(reward=synalinks.rewards.ExactMatch(), optimizer=omega(language_model=down))
    with caplog.at_level(logging.WARNING, logger="optimizer_core"):
        history = await program.fit(x=x, y=y, epochs=2, batch_size=4, verbose=0)
    assert len(history.history["reward"]) == 2
    assert program.optimizer.operations["failed"] == 6
    assert any("skipped" in r.getMessage() for r in caplog.records)


async def test_an_answer_that_copies_its_parent_is_not_scored_again() -> None:
    """A small model often writes its parent back: that value is in the population already,
    so OMEGA skips it (saying so) instead of spending a round of calls scoring it."""
    variable = generator_variable()
    variable.assign({"instructions": "Answer with the bare name."})
    lm = synalinks.FakeLanguageModel(
        responder=lambda m, s: {"thinking": "", "instructions": "Answer with the bare name."}
    )
    optimizer = omega(language_model=lm)
    await optimizer.build([variable])
    trials: list[Any] = []

    async def scored(trial: dict[str, Any]) -> float:
        trials.append(trial)
        return 0.0

    for step in range(3):
        await optimizer.train_step(step, [variable], batch_reward=0.0, evaluate=scored)
    assert len(lm.calls) == 3, "each step asked for a rewrite"
    assert trials == [], "no copy of the parent was scored"
    assert len(variable.get("best_candidates")) == 1
    assert optimizer.operations == {"mutation": 0, "crossover": 0, "failed": 0, "unchanged": 3}


async def test_examples_stay_as_they_are_without_few_shot_learning() -> None:
    kept = [{"inputs": {"q": "a"}, "outputs": {"a": "b"}, "reward": 1.0}]
    variable = generator_variable([{"inputs": {"q": "z"}, "outputs": {"a": "z"}, "reward": 1.0}])
    variable.assign({"examples": kept})
    lm = synalinks.FakeLanguageModel(responder=lambda m, s: {"thinking": "", "instructions": "New"})
    optimizer = omega(language_model=lm)
    await optimizer.build([variable])
    for step in range(5):
        await optimizer.train_step(step, [variable], batch_reward=0.0, evaluate=zero)
    assert all(c["value"]["examples"] == kept for c in variable.get("best_candidates"))


async def test_few_shot_learning_resamples_examples_from_the_predictions() -> None:
    predictions = [
        {"inputs": {"q": str(i)}, "outputs": {"a": str(i)}, "reward": 1.0} for i in range(6)
    ]
    variable = generator_variable(predictions)
    lm = synalinks.FakeLanguageModel(responder=lambda m, s: {"thinking": "", "instructions": "New"})
    optimizer = omega(language_model=lm, few_shot_learning=True, nb_min_examples=2,
                      nb_max_examples=2)  # fmt: skip
    await optimizer.build([variable])
    for step in range(4):
        await optimizer.train_step(step, [variable], batch_reward=0.0, evaluate=zero)
    proposed = variable.get("candidates")
    assert all(c["value"]["instructions"] == "New" for c in proposed)
    assert all(len(c["value"]["examples"]) == 2 for c in proposed)
    shown = {e["inputs"]["q"] for c in proposed for e in c["value"]["examples"]}
    assert shown <= {str(i) for i in range(6)} and len(shown) > 2


async def test_a_variable_without_data_model_gets_a_schema_from_its_value() -> None:
    variable = Variable(name="rules/state", initial_value={"rules": ["be brief"], "tone": "calm"})
    lm = synalinks.FakeLanguageModel(
        responses=[{"thinking": "", "rules": ["be brief", "be exact"], "tone": "warm"}]
    )
    optimizer = omega(language_model=lm)
    await optimizer.build([variable])

    async def evaluate(trial: dict[str, Any]) -> float:
        return 1.0

    await optimizer.train_step(0, [variable], batch_reward=0.0, evaluate=evaluate)
    properties = lm.calls[0].schema["properties"]
    assert list(properties) == ["thinking", "rules", "tone"]
    assert properties["rules"]["type"] == "array"
    assert variable.get("rules") == ["be brief", "be exact"] and variable.get("tone") == "warm"


# Crossover ----------------------------------------------------------------------------------


async def test_crossover_probability_grows_with_the_epoch_counter() -> None:
    variable = point_variable()
    optimizer = omega(merging_rate=0.1, algorithm="ga", seed=4)
    populate(optimizer, variable, [(0.9, {"x": 0.0}), (0.5, {"x": 1.0}), (0.1, {"x": 2.0})])
    draws = 2000
    for epoch in range(6):
        assert optimizer.epochs == epoch
        expected = min(1.0, 0.1 * epoch)
        assert optimizer.crossover_probability == pytest.approx(expected)
        share = sum(optimizer.choose_operation(variable) == "crossover" for _ in range(draws))
        sigma = math.sqrt(expected * (1 - expected) / draws)
        assert abs(share / draws - expected) <= 4 * sigma + 1e-9
        await optimizer.on_epoch_end(epoch, [variable])  # the trainer's epoch end
    assert optimizer.epochs == 6


async def test_crossover_merges_two_distinct_parents() -> None:
    variable = plan_variable()
    lm = synalinks.FakeLanguageModel(
        responder=lambda m, s: {"thinking": "", "plan": "merged", "steps": ["a", "b"]}
    )
    optimizer = omega(language_model=lm, merging_rate=1.0, crossover_temperature=0.9, seed=1)
    optimizer.epochs = 1
    populate(optimizer, variable, [(0.9, {"plan": "A", "steps": ["a"]}),
                                   (0.8, {"plan": "B", "steps": ["b"]})])  # fmt: skip
    await optimizer.train_step(5, [variable], batch_reward=0.0, evaluate=zero)
    child = variable.get("best_candidates")[-1]
    assert child["operation"] == "crossover"
    assert len(set(child["parents"])) == 2
    (call,) = lm.calls
    shown = user_json(call)
    parents = {json.dumps(shown["current_variable"]), json.dumps(shown["other_variable"])}
    assert parents == {json.dumps({"plan": "A", "steps": ["a"]}),
                       json.dumps({"plan": "B", "steps": ["b"]})}  # fmt: skip
    assert call.temperature == 0.9
    assert "Merge" in system_text(call)


async def test_crossover_falls_back_to_mutation_with_a_single_candidate() -> None:
    variable = plan_variable()
    optimizer = omega(merging_rate=1.0)
    optimizer.epochs = 3
    await optimizer.build([variable])
    assert all(optimizer.choose_operation(variable) == "mutation" for _ in range(50))


# Selection ----------------------------------------------------------------------------------


@pytest.mark.parametrize("selection", ["softmax", "best", "random"])
def test_parent_selection_frequencies(selection: str) -> None:
    variable = point_variable()
    optimizer = omega(selection=selection, selection_temperature=0.3, seed=2)
    rewards = [1.0, 0.5, 0.0]
    populate(optimizer, variable, [(r, {"x": float(i)}) for i, r in enumerate(rewards)])
    draws = 3000
    counts = [0, 0, 0]
    for _ in range(draws):
        (parent,) = optimizer.select_parents(variable)
        counts[int(parent["value"]["x"])] += 1
    expected = {
        "softmax": softmax(rewards, 0.3),
        "best": [1.0, 0.0, 0.0],
        "random": [1 / 3, 1 / 3, 1 / 3],
    }[selection]
    for count, p in zip(counts, expected, strict=True):
        assert abs(count / draws - p) <= 4 * math.sqrt(p * (1 - p) / draws) + 1e-9
    pairs = [optimizer.select_parents(variable, 2) for _ in range(100)]
    assert all(a["id"] != b["id"] for a, b in pairs)
    if selection == "best":
        assert all([a["reward"], b["reward"]] == [1.0, 0.5] for a, b in pairs)


def test_variable_selection_tries_unvisited_variables_first_then_favours_the_worst() -> None:
    variables = [plan_variable(f"v{i}/state") for i in range(3)]
    optimizer = omega(selection_temperature=0.3, seed=5)
    for expected in variables:
        chosen = optimizer.select_variable(variables)
        assert chosen is expected
        optimizer.selections[chosen.name] = 1
    averages = [0.2, 0.5, 0.9]
    for variable, average in zip(variables, averages, strict=True):
        variable.update({"nb_visit": 10, "cumulative_reward": average * 10})
    draws = 4000
    counts = {v.name: 0 for v in variables}
    for _ in range(draws):
        counts[optimizer.select_variable(variables).name] += 1
    expected = [math.exp(-a / 0.3) for a in averages]
    expected = [e / sum(expected) for e in expected]
    for variable, p in zip(variables, expected, strict=True):
        share = counts[variable.name] / draws
        assert abs(share - p) <= 4 * math.sqrt(p * (1 - p) / draws)


async def test_one_variable_is_worked_on_per_step_and_never_picked_ones_go_first() -> None:
    variables = [plan_variable("first/state"), plan_variable("second/state")]
    optimizer = omega()
    await optimizer.build(variables)
    await optimizer.train_step(0, variables, batch_reward=0.0, evaluate=zero)
    assert [len(v.get("candidates")) for v in variables] == [1, 0]
    await optimizer.train_step(1, variables, batch_reward=0.0, evaluate=zero)
    assert [len(v.get("candidates")) for v in variables] == [1, 1]
    assert optimizer.selections == {"first/state": 1, "second/state": 1}


# Competition --------------------------------------------------------------------------------

# Five candidates on a line (see test_dns): DNS with k=2 drops #1 (redundant: next to the
# best) at the median cut, and the cap of 3 then drops #4 (the worst reward).
LINE = [(1.0, 0.0), (0.8, 1.0), (0.8, 5.0), (0.5, 2.0), (0.2, 10.0)]


async def test_dns_keeps_novel_candidates_and_caps_the_population() -> None:
    variable = point_variable()
    optimizer = omega(distance_function=line_distance, k_nearest_fitter=2, population_size=3)
    population = populate(optimizer, variable, [(r, {"x": x}) for r, x in LINE])
    ids = [c["id"] for c in population]
    recorder = Recorder()
    context = TrainingContext(on_event=lambda event, payload: _record(recorder, event, payload))
    await optimizer.on_epoch_end(0, [variable], context)
    assert [c["id"] for c in variable.get("best_candidates")] == [ids[0], ids[2], ids[3]]
    assert variable.get("x") == 0.0, "the best candidate stays in the variable"
    competition = optimizer.last_competition["point/state"]
    assert [c["score"] for c in competition] == [1.0, 1.0, 5.0, 1.5, 6.5]
    assert [c["kept"] for c in competition] == [True, False, True, True, False]
    ((event, payload),) = recorder.events
    assert event == "population" and payload["algorithm"] == "dns"
    assert payload["dropped"] == [ids[1], ids[4]]
    assert [(c["id"], c["score"], c["kept"]) for c in payload["population"]] == [
        (c["id"], c["score"], c["kept"]) for c in competition
    ]


async def _record(recorder: Recorder, event: str, payload: dict[str, Any]) -> None:
    recorder.on_optimizer_event(event, payload)


async def test_ga_keeps_the_best_by_reward_without_novelty() -> None:
    variable = point_variable()
    embeddings = CountingEmbeddingModel()
    optimizer = omega(algorithm="ga", population_size=3, embedding_model=embeddings)
    population = populate(optimizer, variable, [(r, {"x": x}) for r, x in LINE])
    await optimizer.on_epoch_end(0, [variable])
    kept = [c["id"] for c in variable.get("best_candidates")]
    assert kept == [population[0]["id"], population[1]["id"], population[2]["id"]]
    assert embeddings.requests == 0


class CountingEmbeddingModel(synalinks.FakeEmbeddingModel):
    """Counts requests made to the model and the texts sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.requests = 0
        self.texts: list[str] = []

    async def __call__(self, texts: list[str]) -> list[list[float]]:
        self.requests += 1
        self.texts.extend(texts)
        return await super().__call__(texts)


async def test_default_distance_embeds_each_value_once() -> None:
    variable = generator_variable()
    embeddings = CountingEmbeddingModel()
    optimizer = omega(embedding_model=embeddings, population_size=20)
    values = [{"instructions": f"Rule {i}: answer about topic {i}", "examples": []}
              for i in range(12)]  # fmt: skip
    populate(optimizer, variable, [(i / 12, v) for i, v in enumerate(values)])
    await optimizer.on_epoch_end(0, [variable])
    # O(N): one request with the 12 values (the DNS needs up to 66 distances).
    assert embeddings.requests == 1 and len(embeddings.texts) == 12
    assert len(embeddings.calls) == 1
    # Only trainable fields are embedded: no ids, rewards or other bookkeeping.
    assert sorted(embeddings.texts) == sorted(value_key(v) for v in values)
    survivors = variable.get("best_candidates")
    extra = [optimizer.new_candidate(variable, {"instructions": f"New {i}", "examples": []},
                                     operation="mutation") for i in range(2)]  # fmt: skip
    for candidate in extra:
        credit(candidate, 0.5)
    variable.update({"best_candidates": survivors + extra})
    await optimizer.on_epoch_end(1, [variable])
    assert embeddings.requests == 2 and len(embeddings.texts) == 14, "only new values embedded"


async def test_embedding_failure_falls_back_to_reward_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken(synalinks.FakeEmbeddingModel):
        async def _transport(self, texts: list[str]) -> Any:
            raise InvalidResponseError("embeddings down")

    variable = point_variable()
    optimizer = omega(embedding_model=Broken(max_retries=0), population_size=3)
    population = populate(optimizer, variable, [(r, {"x": x}) for r, x in LINE])
    with caplog.at_level(logging.WARNING, logger="optimizer_core"):
        await optimizer.on_epoch_end(0, [variable])
    assert [c["id"] for c in variable.get("best_candidates")] == [c["id"] for c in population[:3]]
    assert any("could not embed" in r.getMessage() for r in caplog.records)


# Training, events, saving -------------------------------------------------------------------


class RuleBook(Module):
    """A module whose trainable JSON is a plan of string transformations, not a prompt."""

    def __init__(self, *, name: str = "rulebook") -> None:
        super().__init__(name=name, description="Applies its steps to the query")
        self.state = self.add_variable(
            Variable(
                name=f"{name}/state", initial_value={"plan": "echo", "steps": []}, data_model=Plan
            )
        )

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[synalinks.DataModel]:
        return Answer

    async def call(self, inputs: Any, *, training: bool = False) -> Any:
        text = inputs.query
        for step in self.state.get("steps"):
            text = text.upper() if step == "upper" else text
        output = Answer(answer=text)
        trace = TRACE.get()
        if trace is not None:
            trace.append({"module": self.name, "inputs": inputs.get_json(),
                          "outputs": output.get_json(), "error": None})  # fmt: skip
        return output


async def test_omega_trains_a_custom_trainable_variable_end_to_end() -> None:
    inputs = synalinks.Input(data_model=Query)
    outputs = await RuleBook()(inputs)
    program = synalinks.Program(inputs=inputs, outputs=outputs, description="Shout the query")
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    x = np.array([Query(query=w) for w in words], dtype="object")
    y = np.array([Answer(answer=w.upper()) for w in words], dtype="object")

    def responder(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        return {"thinking": "the expected answers are uppercase", "plan": "shout",
                "steps": ["upper"]}  # fmt: skip

    optimizer = omega(language_model=synalinks.FakeLanguageModel(responder=responder))
    program.compile(reward=synalinks.rewards.ExactMatch(), optimizer=optimizer)
    assert (await program.evaluate(x=x, y=y, verbose=0))["reward"] == 0.0
    await program.fit(x=x, y=y, epochs=2, batch_size=4, verbose=0)
    assert program.trainable_variables[0].get_trainable_json() == {
        "plan": "shout", "steps": ["upper"]
    }  # fmt: skip
    assert (await program.evaluate(x=x, y=y, verbose=0))["reward"] == 1.0


async def test_events_reach_callbacks_with_lineage_and_competition() -> None:
    x, y, student = capitals(16)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(),
        optimizer=omega(population_size=3, language_model=rewriting_lm()),
    )
    recorder = Recorder()
    await program.fit(x=x, y=y, epochs=2, batch_size=4, verbose=0, callbacks=[recorder])
    candidates = [p for e, p in recorder.events if e == "candidate"]
    populations = [p for e, p in recorder.events if e == "population"]
    assert len(candidates) == 8 and len(populations) == 2
    for payload in candidates:
        candidate = payload["candidate"]
        assert payload["variable"] == program.trainable_variables[0].name
        assert candidate["operation"] in ("mutation", "crossover") and candidate["parents"]
        assert isinstance(candidate["reward"], float)
    last = populations[-1]
    assert all({"score", "kept"} <= set(c) for c in last["population"])
    kept = [c["id"] for c in last["population"] if c["kept"]]
    assert sorted(kept) == sorted(last["kept"])
    assert sorted(kept) == sorted(
        c["id"] for c in program.trainable_variables[0].get("best_candidates")
    )
    assert len(kept) == 3 and len(last["dropped"]) == len(last["population"]) - 3


class SaveAfterFirstEpoch(synalinks.callbacks.Callback):
    def __init__(self, program: synalinks.Program, path: str) -> None:
        super().__init__()
        self.target = program
        self.path = path
        self.snapshot: dict[str, Any] = {}

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if epoch == 0:
            self.target.save(self.path)
            variable = self.target.trainable_variables[0]
            self.snapshot = {
                "population": copy.deepcopy(variable.get("best_candidates")),
                "state": self.target.optimizer.get_state(),
            }


async def test_a_program_saved_mid_training_resumes_with_the_same_population(tmp_path) -> None:
    x, y, student = capitals(16)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(),
        optimizer=omega(population_size=4, language_model=rewriting_lm()),
    )
    saver = SaveAfterFirstEpoch(program, str(tmp_path / "mid.json"))
    await program.fit(x=x, y=y, epochs=3, batch_size=4, verbose=0, callbacks=[saver])

    loaded = synalinks.Program.load(tmp_path / "mid.json")
    optimizer = loaded.optimizer
    assert isinstance(optimizer, OMEGA)
    saved_population = saver.snapshot["population"]
    assert loaded.trainable_variables[0].get("best_candidates") == saved_population
    assert all("parents" in c and "operation" in c for c in saved_population)
    state = optimizer.get_state()
    assert state == saver.snapshot["state"]
    name = loaded.trainable_variables[0].name
    assert state["epochs"] == 1 and state["selections"] == {name: 4}
    assert state["last_competition"][name], "DNS scores of the last competition"

    recorder = Recorder()
    await loaded.fit(x=x, y=y, epochs=3, initial_epoch=1, batch_size=4, verbose=0,
                     callbacks=[recorder])  # fmt: skip
    assert optimizer.epochs == 3
    proposed = [p["candidate"] for e, p in recorder.events if e == "candidate"]
    copies = [p for e, p in recorder.events if e == "proposal_skipped"]
    # Two epochs of four steps: each proposes, or skips an answer that copies its parent.
    assert len(proposed) + len(copies) == 8 and proposed
    saved_ids = {c["id"] for c in saved_population}
    assert set(proposed[0]["parents"]) <= saved_ids, "evolution continues from the saved population"
    max_saved = max(int(i.rsplit("#", 1)[1]) for i in saved_ids)
    assert all(int(c["id"].rsplit("#", 1)[1]) > max_saved for c in proposed), "ids never collide"


# End to end through litellm -----------------------------------------------------------------
#
# A scripted server plays two roles. As the task model it looks up the capital and writes
# it in the letter case its system prompt asks for ("UPPERCASE" / "lowercase"); without
# such an instruction it writes the usual spelling, except for about a quarter of the
# countries where it happens to shout. Few-shot examples change nothing, so only new
# instructions can fix the task (gold answers are uppercase). As the optimizer's model it
# reads the scored predictions it is shown and, when every successful answer (the ground
# truth, or outputs that earned a full reward) shares one letter case the failing ones
# lack, adds an instruction naming that case.

_QUESTIONS, _ANSWERS, _ = capitals_task()
_CAPITALS = {
    q["query"].removeprefix("What is the capital of ").rstrip("?").lower(): a["answer"]
    for q, a in zip(_QUESTIONS, _ANSWERS, strict=True)
}
_CASES = {"UPPERCASE": str.upper, "lowercase": str.lower}


class Country(synalinks.DataModel):
    country: str = synalinks.Field(description="The country the question is about")


def _shouts_by_chance(country: str) -> bool:
    return hashlib.sha256(country.lower().encode()).digest()[0] < 64


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _case_of(texts: list[str]) -> str | None:
    """The letter case every text is written in, if they share one."""
    for name, convert in _CASES.items():
        if texts and all(t == convert(t) and t != t.swapcase() for t in texts):
            return name
    return None


def _rewrite(shown: dict[str, Any]) -> dict[str, Any]:
    instructions = str(shown["current_variable"].get("instructions", ""))
    shown_predictions = shown["best_predictions"] + shown["worst_predictions"]
    truths = [p["ground_truth"] for p in shown_predictions if p.get("ground_truth")]
    successes = truths or [p["outputs"] for p in shown["best_predictions"] if p["reward"] >= 1.0]
    failures = [p["outputs"] for p in shown["worst_predictions"] if p["reward"] < 1.0]
    case = _case_of(_strings(successes))
    if case is None or _case_of(_strings(failures)) == case or case in instructions:
        return {"thinking": "No pattern separates good from bad answers.",
                "instructions": instructions}  # fmt: skip
    return {
        "thinking": f"Every successful answer is written in {case}; the failing ones are not.",
        "instructions": f"{instructions} Write the answer in {case} letters.".strip(),
    }


def case_task_responder(request: dict[str, Any]) -> dict[str, Any] | str:
    schema = request["response_format"]["json_schema"]["schema"]
    messages = request["messages"]
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    shown = json.loads(messages[-1]["content"])
    if "current_variable" in shown:
        return _rewrite(shown)
    properties = schema.get("properties", {})
    if "country" in properties:
        return {"country": shown["query"].removeprefix("What is the capital of ").rstrip("?")}
    if "answer" in properties:
        capital = _CAPITALS.get(str(shown["country"]).lower(), "unknown")
        asked = [convert for name, convert in _CASES.items() if name in system]
        if asked:
            return {"answer": asked[0](capital)}
        return {"answer": capital.upper() if _shouts_by_chance(shown["country"]) else capital}
    return default_responder(request)


async def _train_case_task(server: ScriptedServer, optimizer: Any) -> tuple[float, Any]:
    lm = synalinks.LanguageModel("openai/scripted", api_base=server.base_url, backoff_base=0.01)
    inputs = synalinks.Input(data_model=Query)
    country = await synalinks.Generator(data_model=Country, language_model=lm, name="extract")(
        inputs
    )
    answer = await synalinks.Generator(data_model=Answer, language_model=lm, name="capital")(
        country
    )
    program = synalinks.Program(
        inputs=inputs, outputs=answer, description="Give the capital of the country asked about"
    )
    program.compile(reward=synalinks.rewards.ExactMatch(in_mask=["answer"]), optimizer=optimizer)
    x = np.array([Query(**q) for q in _QUESTIONS], dtype="object")
    y = np.array([Answer(answer=a["answer"].upper()) for a in _ANSWERS], dtype="object")
    await program.fit(x=x[:30], y=y[:30], validation_split=0.2, epochs=3, batch_size=6,
                      verbose=0, seed=0)  # fmt: skip
    scores = await program.evaluate(x=x[30:], y=y[30:], verbose=0)
    return scores["reward"], program


@pytest.mark.litellm
async def test_omega_fixes_instructions_that_random_few_shot_cannot() -> None:
    async with ScriptedServer(case_task_responder) as server:
        baseline, _ = await _train_case_task(server, synalinks.optimizers.RandomFewShot(seed=0))
        em = synalinks.EmbeddingModel("openai/scripted-embedding", api_base=server.base_url)
        lm = synalinks.LanguageModel("openai/scripted", api_base=server.base_url)
        optimizer = OMEGA(language_model=lm, embedding_model=em, mutation_temperature=0.4, seed=0)
        server.stats.reset()
        reward, program = await _train_case_task(server, optimizer)
        mutations = [
            r for r in server.stats.requests if "current_variable" in str(r.get("messages"))
        ]
        embeddings = server.stats.embedding_requests
    assert baseline < 0.5, "examples alone cannot fix the letter case"
    assert reward == 1.0 and reward > baseline + 0.3
    capital = program.get_module("capital").trainable_variables[0]
    assert "UPPERCASE" in capital.get("instructions")
    assert mutations and all(r["temperature"] == 0.4 for r in mutations)
    assert embeddings >= 1, "DNS embedded the candidates through the server"


# Compact prompts (a small model) ------------------------------------------------------------


class SmallFake(synalinks.FakeLanguageModel):
    """A fake that asks for compact prompts, as the bundled model does."""

    compact_prompts = True


async def test_a_small_model_gets_the_compact_mutation_prompt_without_thinking() -> None:
    predictions = [
        {"inputs": {"q": str(i)}, "outputs": {"a": str(i)}, "reward": r}
        for i, r in enumerate([0.0, 1.0, 0.5, 0.25])
    ]
    predictions[0]["ground_truth"] = {"a": "zero"}
    variable = generator_variable(predictions)
    lm = SmallFake(responses=[{"instructions": "Answer with the name."}])
    optimizer = omega(language_model=lm, instructions="Be brief")
    assert optimizer.prompts == "auto" and optimizer.compact_prompts
    context = TrainingContext(description="Answer trivia questions")
    await optimizer.build([variable], context)
    await optimizer.train_step(0, [variable], batch_reward=0.2, evaluate=zero, context=context)

    (call,) = lm.calls
    shown = user_json(call)
    assert shown == {
        "task": "Answer trivia questions",
        "instructions": "Answer.",
        "mistakes": [
            # The reward shows even where the reward gave no feedback.
            {"inputs": {"q": "0"}, "answer": {"a": "0"}, "expected": {"a": "zero"}, "reward": 0.0},
            {"inputs": {"q": "3"}, "answer": {"a": "3"}, "expected": None, "reward": 0.25},
        ],
        "guidance": "Be brief",
    }
    # Two sentences, not the full prompt; no thinking; a short cap on the rewrite.
    assert len(system_text(call)) < 300 and "`mistakes`" in system_text(call)
    assert list(call.schema["properties"]) == ["instructions"]
    assert call.schema["properties"]["instructions"]["maxLength"] == 300
    population = variable.get("best_candidates")
    assert population[-1]["value"]["instructions"] == "Answer with the name."


async def test_the_prompts_setting_overrides_what_the_model_asks_for() -> None:
    variable = generator_variable()
    small = SmallFake(responses=[{"thinking": "t", "instructions": "Full."}])
    optimizer = omega(language_model=small, prompts="full")
    await optimizer.build([variable], TrainingContext())
    await optimizer.train_step(0, [variable], batch_reward=0.0, evaluate=zero)
    assert list(small.calls[0].schema["properties"]) == ["thinking", "instructions"]
    assert "program_description" in user_json(small.calls[0])

    plain = synalinks.FakeLanguageModel(responses=[{"instructions": "Compact."}])
    optimizer = omega(language_model=plain, prompts="compact")
    other = generator_variable()
    await optimizer.build([other], TrainingContext())
    await optimizer.train_step(0, [other], batch_reward=0.0, evaluate=zero)
    assert list(plain.calls[0].schema["properties"]) == ["instructions"]
    assert optimizer.get_config()["prompts"] == "compact"


async def test_a_compact_crossover_shows_both_parents() -> None:
    variable = plan_variable()
    lm = SmallFake(responder=lambda m, s: {"plan": "merged", "steps": ["a", "b"]})
    optimizer = omega(language_model=lm, merging_rate=1.0, seed=1)
    optimizer.epochs = 1
    populate(optimizer, variable, [(0.9, {"plan": "A", "steps": ["a"]}),
                                   (0.8, {"plan": "B", "steps": ["b"]})])  # fmt: skip
    await optimizer.train_step(5, [variable], batch_reward=0.0, evaluate=zero)
    assert variable.get("best_candidates")[-1]["operation"] == "crossover"
    shown = user_json(lm.calls[0])
    assert {shown["plan"], shown["other"]["plan"]} == {"A", "B"}
    assert "Merge" in system_text(lm.calls[0])


def test_the_bundled_model_asks_for_compact_prompts() -> None:
    from optimizer_core.local_models import LocalLanguageModel

    assert LocalLanguageModel("openai/smollm2").compact_prompts
    assert not LocalLanguageModel("openai/big", compact_prompts=False).compact_prompts
    assert not synalinks.LanguageModel("openai/gpt-4o-mini").compact_prompts


def test_a_variable_field_named_like_a_compact_key_is_nested() -> None:
    from optimizer_core.optimizers.omega_prompts import compact_inputs

    assert compact_inputs({"task": "x"}, [], task="t") == {
        "task": "t", "current": {"task": "x"}, "mistakes": []
    }  # fmt: skip


async def test_the_description_survives_a_program_save_and_load(tmp_path) -> None:
    _, _, student = capitals(4)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(),
        optimizer=omega(description="Rewrites the answer instructions"),
    )
    program.save(tmp_path / "described.json")
    loaded = synalinks.Program.load(tmp_path / "described.json")
    assert isinstance(loaded.optimizer, OMEGA)
    assert loaded.optimizer.description == "Rewrites the answer instructions"
    assert loaded.optimizer.get_config()["description"] == "Rewrites the answer instructions"
