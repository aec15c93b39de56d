"""RandomFewShot: example sampling, argument checks, config and state round-trips."""

from __future__ import annotations

import itertools
import json
import random

import pytest

import optimizer_core as synalinks
from optimizer_core.modules.generator import GeneratorState
from optimizer_core.optimizers import TrainingContext
from optimizer_core.optimizers.optimizer import softmax, weighted_sample_without_replacement
from optimizer_core.variables import Variable
from tests.support import build_program, capitals


def scored_variable(rewards: list[float]) -> Variable:
    variable = Variable(
        name="gen/state",
        initial_value={"instructions": "x", "examples": []},
        data_model=GeneratorState,
    )
    variable.update(
        {
            "predictions": [
                {"inputs": {"q": str(i)}, "outputs": {"a": str(i)}, "reward": r}
                for i, r in enumerate(rewards)
            ]
        }
    )
    return variable


def test_example_count_stays_in_bounds_and_has_no_duplicates() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=2, nb_max_examples=4, seed=0)
    variable = scored_variable([0.5] * 10)
    sizes = set()
    for _ in range(200):
        examples = optimizer.sample_examples(variable)
        assert examples is not None
        sizes.add(len(examples))
        assert len({e["inputs"]["q"] for e in examples}) == len(examples)
    assert sizes == {2, 3, 4}


def test_sampling_follows_softmax_of_rewards() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=1, nb_max_examples=1, seed=1)
    variable = scored_variable([1.0, 0.2])
    draws = [optimizer.sample_examples(variable)[0]["inputs"]["q"] for _ in range(4000)]
    expected = softmax([1.0, 0.2], 0.3)[0]  # about 0.935
    assert abs(draws.count("0") / len(draws) - expected) < 0.02


def test_rows_that_scored_nothing_are_never_shown_and_an_input_counts_once() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=3, nb_max_examples=3, seed=0)
    variable = scored_variable([1.0, 0.0, 0.0, 0.5])
    predictions = variable.get("predictions")
    variable.update({"predictions": [*predictions, {**predictions[0], "reward": 0.6}]})
    for _ in range(50):
        drawn = optimizer.sample_examples(variable)
        assert sorted(e["inputs"]["q"] for e in drawn) == ["0", "3"]
        assert {e["inputs"]["q"]: e["reward"] for e in drawn}["0"] == 1.0  # its best reward
    assert optimizer.sample_examples(scored_variable([0.0, 0.0])) is None


def test_weighted_sampling_without_replacement_exhausts_the_pool() -> None:
    rng = random.Random(0)
    assert sorted(weighted_sample_without_replacement(rng, "abc", [1, 1, 1], 5)) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"nb_min_examples": -1}, "nb_min_examples"),
        ({"nb_min_examples": 3, "nb_max_examples": 2}, "nb_max_examples"),
        ({"sampling_temperature": 0.0}, "sampling_temperature"),
        ({"population_size": 1}, "population_size"),
    ],
)
def test_bad_arguments_are_named(kwargs, argument) -> None:
    with pytest.raises(ValueError, match=f"`{argument}`"):
        synalinks.optimizers.RandomFewShot(**kwargs)


def test_config_round_trip_and_lookup() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=2, nb_max_examples=5, seed=7)
    config = synalinks.optimizers.serialize(optimizer)
    again = synalinks.optimizers.deserialize(config)
    assert again.get_config() == optimizer.get_config()
    assert isinstance(
        synalinks.optimizers.get("random_few_shot"), synalinks.optimizers.RandomFewShot
    )
    assert isinstance(synalinks.optimizers.get("RandomFewShot"), synalinks.optimizers.RandomFewShot)
    assert synalinks.optimizers.get(optimizer) is optimizer
    with pytest.raises(ValueError, match="unknown optimizer 'adam'"):
        synalinks.optimizers.get("adam")


def test_state_round_trip_continues_the_same_random_stream() -> None:
    a = synalinks.optimizers.RandomFewShot(seed=3)
    a.rng.random()
    a.iterations = 5
    b = synalinks.optimizers.RandomFewShot()
    b.set_state(a.get_state())
    assert b.iterations == 5
    assert [b.rng.random() for _ in range(3)] == [a.rng.random() for _ in range(3)]


async def test_a_proposal_that_scores_better_replaces_the_current_value() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(seed=0)
    variable = scored_variable([1.0, 1.0, 1.0])
    await optimizer.build([variable])

    async def evaluate(trial):
        return 1.0 if trial["gen/state"]["examples"] else 0.0

    await optimizer.train_step(0, [variable], batch_reward=0.2, evaluate=evaluate)
    assert variable.get("examples"), "the better candidate was written into the variable"
    population = variable.get("best_candidates")
    assert [c["operation"] for c in population] == ["init", "few_shot"]
    assert population[1]["parents"] == [population[0]["id"]]
    assert population[0]["reward"] == 0.2 and population[1]["reward"] == 1.0


async def test_a_new_optimizer_never_reuses_candidate_ids() -> None:
    """Recompiling a trained program with another optimizer must keep ids unique."""
    variable = scored_variable([1.0, 0.5, 0.0])
    first = synalinks.optimizers.RandomFewShot(seed=0)
    await first.build([variable])

    async def evaluate(trial):
        return 0.5

    for step in range(3):
        await first.train_step(step, [variable], batch_reward=0.1, evaluate=evaluate)
    second = synalinks.optimizers.RandomFewShot(seed=1)
    await second.build([variable])
    await second.train_step(0, [variable], batch_reward=0.1, evaluate=evaluate)
    ids = [c["id"] for c in variable.get("best_candidates")]
    assert len(ids) == len(set(ids))


# Labelled examples ---------------------------------------------------------------------------


def labelled_variable(rows: list[tuple[str, str, str]]) -> Variable:
    """A variable whose predictions answer the program's output: (input, answer, expected)."""
    variable = Variable(
        name="gen/state",
        initial_value={"instructions": "x", "examples": []},
        data_model=GeneratorState,
    )
    variable.update(
        {
            "predictions": [
                {
                    "inputs": {"q": q},
                    "outputs": {"a": answer},
                    "reward": float(answer == expected),
                    "ground_truth": {"a": expected},
                }
                for q, answer, expected in rows
            ]
        }
    )
    return variable


def test_labelled_examples_show_the_expected_output_even_when_the_module_was_wrong() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=2, nb_max_examples=2, seed=0)
    variable = labelled_variable(
        [("q0", "I think it is a refund", "refund"), ("q1", "card", "card")]
    )
    examples = optimizer.sample_examples(variable)
    assert examples is not None
    by_input = {e["inputs"]["q"]: e for e in examples}
    assert by_input["q0"]["outputs"] == {"a": "refund"}
    assert by_input["q0"]["reward"] is None, "the expected output itself was never scored"
    assert by_input["q1"]["outputs"] == {"a": "card"} and by_input["q1"]["reward"] == 1.0


def test_labelled_examples_show_distinct_labels_before_repeating_one() -> None:
    labels = ["refund", "delivery", "address", "password"]
    rows = [(f"q{i}", "free text", labels[i % 4]) for i in range(40)]
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=3, nb_max_examples=3, seed=1)
    variable = labelled_variable(rows)
    for _ in range(100):
        examples = optimizer.sample_examples(variable)
        assert len({e["outputs"]["a"] for e in examples}) == 3
        assert len({e["inputs"]["q"] for e in examples}) == 3


def test_labelled_examples_draw_each_input_once_whatever_its_predictions() -> None:
    rows = [("same", "x", "refund")] * 5 + [("other", "y", "refund")]
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=3, nb_max_examples=3, seed=0)
    examples = optimizer.sample_examples(labelled_variable(rows))
    assert sorted(e["inputs"]["q"] for e in examples) == ["other", "same"]


def test_a_module_whose_outputs_are_not_the_programs_draws_from_its_predictions() -> None:
    """A ChainOfThought's ``thinking`` is not in the rows: its own answers that scored are
    shown (the wrong one, reward 0, is not)."""
    variable = labelled_variable([("q0", "wrong", "right"), ("q1", "right", "right")])
    predictions = variable.get("predictions")
    for prediction in predictions:
        prediction["outputs"] = {"thinking": "...", **prediction["outputs"]}
    variable.update({"predictions": predictions})
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=2, nb_max_examples=2, seed=0)
    examples = optimizer.sample_examples(variable)
    assert [e["outputs"]["a"] for e in examples] == ["right"]
    assert all("thinking" in e["outputs"] for e in examples)


def test_labelled_examples_off_draws_from_the_modules_own_answers() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(
        labelled_examples=False, nb_min_examples=1, nb_max_examples=1, seed=0
    )
    variable = labelled_variable([("q0", "wrong", "right"), ("q1", "right", "right")])
    assert optimizer.sample_examples(variable) == [
        {"inputs": {"q": "q1"}, "outputs": {"a": "right"}, "reward": 1.0}
    ]
    assert optimizer.sample_examples(labelled_variable([("q0", "wrong", "right")])) is None
    with pytest.raises(TypeError, match="`labelled_examples`"):
        synalinks.optimizers.RandomFewShot(labelled_examples="yes")


class _Message(synalinks.DataModel):
    message: str


class _Topic(synalinks.DataModel):
    topic: str


def _label_student(messages, schema):
    """Answers a message's topic only when an example shows that topic's name, else free text."""
    system = messages[0]["content"]
    message = json.loads(messages[-1]["content"])["message"]
    topic = message.split()[0]
    if f'"topic": "{topic}"' in system:
        return {"topic": topic}
    return {"topic": f"I think this is about {topic}s"}


@pytest.mark.parametrize(("labelled", "learns"), [(True, True), (False, False)])
async def test_a_model_that_never_answers_right_unshown_learns_from_labelled_examples(
    labelled, learns
) -> None:
    topics = ["refund", "delivery", "address"]
    rows = [{"message": f"{topics[i % 3]} question number {i}"} for i in range(60)]
    targets = [{"topic": topics[i % 3]} for i in range(60)]
    lm = synalinks.FakeLanguageModel(responder=_label_student)
    inputs = synalinks.Input(data_model=_Message)
    outputs = await synalinks.Generator(data_model=_Topic, language_model=lm)(inputs)
    program = synalinks.Program(inputs=inputs, outputs=outputs, name="topics")
    program.compile(
        reward=synalinks.rewards.ExactMatch(),
        optimizer=synalinks.optimizers.RandomFewShot(
            labelled_examples=labelled, nb_min_examples=3, nb_max_examples=3, seed=0
        ),
    )
    before = await program.evaluate(rows[40:], targets[40:], verbose=0)
    await program.fit(rows[:40], targets[:40], epochs=1, batch_size=10, verbose=0, seed=0)
    after = await program.evaluate(rows[40:], targets[40:], verbose=0)
    assert before["reward"] == 0.0
    assert (after["reward"] == 1.0) is learns
    if not learns:
        assert after["reward"] == 0.0


async def test_one_variable_is_proposed_for_per_step_in_turn() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(nb_min_examples=1, nb_max_examples=1, seed=0)
    first, second = scored_variable([1.0, 0.5]), scored_variable([0.8])
    second.name = "other/state"
    never = scored_variable([0.0])  # nothing scored: nothing to draw, skipped
    never.name = "never/state"
    context = TrainingContext()
    picked = [
        [
            v.name
            for v, *_ in await optimizer.propose_candidates(step, [first, never, second], context)
        ]
        for step in range(4)
    ]
    assert picked == [["gen/state"], ["other/state"], ["gen/state"], ["other/state"]]


# -- history: the best candidate's value at each epoch end -------------------------------


async def test_each_epoch_end_notes_the_best_value_without_its_reward() -> None:
    optimizer = synalinks.optimizers.RandomFewShot(seed=0)
    variable = scored_variable([])
    await optimizer.build([variable])

    def propose(instructions: str, reward: float) -> None:
        value = {"instructions": instructions, "examples": []}
        candidate = optimizer.new_candidate(variable, value, operation="few_shot")
        candidate.update({"reward": reward, "nb_evaluations": 1})
        optimizer.add_to_population(variable, candidate)

    propose("v1", 0.5)
    await optimizer.on_epoch_end(0, [variable])
    await optimizer.on_epoch_end(1, [variable])  # the same best: not noted twice
    propose("v2", 0.8)
    await optimizer.on_epoch_end(2, [variable])
    propose("worse", 0.1)
    await optimizer.on_epoch_end(3, [variable])

    assert variable.get("history") == [
        {"instructions": "v1", "examples": []},
        {"instructions": "v2", "examples": []},
    ]
    assert "history" not in variable.trainable_fields


async def test_a_fit_leaves_the_values_it_went_through_in_the_history() -> None:
    x, y, student = capitals(12)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    await program.fit(x=x, y=y, epochs=3, batch_size=4, seed=0, verbose=0)

    (variable,) = program.trainable_variables
    history = variable.get("history")
    assert 1 <= len(history) <= 3
    assert all(set(entry) == set(variable.trainable_fields) for entry in history)
    assert all(a != b for a, b in itertools.pairwise(history))
    # It saves with the program.
    again = synalinks.Program.from_json(json.loads(json.dumps(program.to_json())))
    assert again.trainable_variables[0].get("history") == history
