"""RandomFewShot: example sampling, argument checks, config and state round-trips."""

from __future__ import annotations

import random

import pytest

import optimizer_core as synalinks
from optimizer_core.modules.generator import GeneratorState
from optimizer_core.optimizers.optimizer import softmax, weighted_sample_without_replacement
from optimizer_core.variables import Variable


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
    variable = scored_variable([1.0, 0.0])
    draws = [optimizer.sample_examples(variable)[0]["inputs"]["q"] for _ in range(4000)]
    expected = softmax([1.0, 0.0], 0.3)[0]  # about 0.966
    assert abs(draws.count("0") / len(draws) - expected) < 0.02


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
