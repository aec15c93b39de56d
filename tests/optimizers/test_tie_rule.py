"""The tie rule: a trained candidate that scores as well as the starting values is kept.

The data is not shuffled, so France (answered "Paris", the one right answer) is a
training row RandomFewShot can take as an example, not a validation row.

The reference library's scenario: a few epochs of RandomFewShot with a model whose
answers ignore the prompt, so every candidate scores the same as the starting
values on validation. The reference ends with the trained examples; so do we.
"""

from __future__ import annotations

import json

import optimizer_core as synalinks
from optimizer_core.programs.best_epoch import START_EPOCH, BestEpoch
from tests.support import build_program, capitals


def always_paris(messages, schema):
    return json.dumps({"answer": "Paris"})


async def test_training_that_changes_nothing_still_ends_with_examples() -> None:
    x, y, _ = capitals(12)
    program = await build_program(synalinks.FakeLanguageModel(responder=always_paris))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    await program.fit(
        x=x,
        y=y,
        validation_split=0.25,
        epochs=3,
        batch_size=3,
        verbose=0,
        validate_start=True,
        shuffle=False,
    )
    (variable,) = program.trainable_variables
    assert variable.get("examples"), "the trained examples were dropped on a tie"


def test_an_epoch_tying_the_starting_values_replaces_them_but_not_an_earlier_epoch() -> None:
    best = BestEpoch("val_reward")
    assert best.consider(START_EPOCH, {"val_reward": 0.5}, [])
    assert best.consider(0, {"val_reward": 0.5}, [])  # ties the start: training kept
    assert not best.consider(1, {"val_reward": 0.5}, [])  # ties epoch 0: the earlier stays
    assert best.epoch == 0
    assert best.consider(2, {"val_reward": 0.6}, [])
