"""FitState and BestEpoch: what fit carries across a resume, saved on their own."""

from __future__ import annotations

import copy
import math
import random

import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import SerializationError
from optimizer_core.programs.best_epoch import START_EPOCH, BestEpoch
from optimizer_core.programs.fit_state import FitState
from tests.support import build_program, capitals

FIT = {"validation_split": 0.25, "batch_size": 4, "seed": 3, "verbose": 0}


async def trained(epochs: int = 2) -> synalinks.Program:
    x, y, student = capitals(16)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    await program.fit(x=x, y=y, epochs=epochs, **FIT)
    return program


async def test_the_document_saves_the_fit_state_and_reads_it_back() -> None:
    program = await trained()
    document = program.to_json()
    saved = document["fit_state"]
    assert saved["next_epoch"] == 2 and [e["epoch"] for e in saved["epochs"]] == [0, 1]
    assert saved["signature"]["train_rows"] == 12 and saved["signature"]["validation_rows"] == 4
    assert saved["best"]["monitor"] == "val_reward" and saved["best"]["variables"]
    assert "fit" not in document["optimizer_state"], "the optimizer holds no loop state"

    again = synalinks.Program.from_json(copy.deepcopy(document))
    assert again.fit_state is not None and again.fit_state.to_json() == saved


async def test_fit_sets_no_attribute_on_its_optimizer() -> None:
    x, y, student = capitals(16)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    optimizer = synalinks.optimizers.RandomFewShot(seed=0)
    program.compile(reward=synalinks.rewards.ExactMatch(in_mask=["answer"]), optimizer=optimizer)
    before = set(vars(optimizer))
    await program.fit(x=x, y=y, epochs=1, **FIT)
    assert set(vars(optimizer)) == before


async def test_a_document_saved_with_the_state_in_the_optimizer_still_resumes() -> None:
    """Documents written before `fit_state` had its own key kept it in ``optimizer_state.fit``."""
    program = await trained()
    document = program.to_json()
    legacy = copy.deepcopy(document)
    state = legacy.pop("fit_state")
    state["best"].pop("monitor")
    state["best"]["variables"] = None  # then left out when the best was the last epoch
    legacy["optimizer_state"]["fit"] = state

    again = synalinks.Program.from_json(legacy)
    assert again.fit_state is not None
    restored = again.fit_state.to_json()
    assert restored["best"]["monitor"] == "val_reward"
    assert restored["best"]["variables"] == {
        v.name: {**v.get_trainable_json(), "current_candidate": v.get("current_candidate")}
        for v in again.trainable_variables
    }
    assert restored["epochs"] == document["fit_state"]["epochs"]


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s.update(next_epoch="two"), "fit_state.next_epoch"),
        (lambda s: s.update(rng=[3, "x", None]), "fit_state.rng"),
        (lambda s: s.update(epochs=[{"epoch": 0}]), "fit_state.epochs"),
        (lambda s: s["best"].update(score="high"), "fit_state.best.score"),
        (lambda s: s["best"].update(variables=[1]), "fit_state.best.variables"),
    ],
)
async def test_a_broken_fit_state_is_refused_where_it_is_broken(change, path) -> None:
    document = (await trained(1)).to_json()
    change(document["fit_state"])
    with pytest.raises(SerializationError) as error:
        synalinks.Program.from_json(document)
    assert error.value.path == path and path in str(error.value)


def test_a_fit_continues_only_the_run_it_was_saved_from() -> None:
    signature = {"seed": 1, "shuffle": True, "batch_size": 4, "minibatch_size": 4,
                 "train_rows": 12, "validation_rows": 4}  # fmt: skip
    saved = FitState(signature, BestEpoch("val_reward"))
    saved.end_epoch(0, {"val_reward": 0.5}, random.Random(1))
    assert FitState.begin(saved, 1, dict(signature)) is saved
    assert FitState.begin(saved, 0, dict(signature)) is not saved, "a fresh start"
    assert FitState.begin(saved, 2, dict(signature)) is not saved, "an epoch was skipped"
    other = {**signature, "batch_size": 3}
    fresh = FitState.begin(saved, 1, other)
    assert fresh is not saved and fresh.epochs == [] and not fresh.best.found


def test_a_state_seeds_the_generator_where_the_run_left_it() -> None:
    rng = random.Random(7)
    rng.random()
    state = FitState({}, BestEpoch("reward"))
    state.end_epoch(0, {}, rng)
    expected = rng.random()
    fresh = random.Random(0)
    FitState.from_json(state.to_json(), current={}).seed(fresh)
    assert fresh.random() == expected


class Holder:
    """A trainable variable's stand-in: its trainable JSON and its candidate."""

    def __init__(self, value: str) -> None:
        self.name = "v"
        self.value = {"instructions": value}
        self.candidate = value

    def get_trainable_json(self) -> dict[str, str]:
        return dict(self.value)

    def get(self, key: str) -> str:
        assert key == "current_candidate"
        return self.candidate

    def assign(self, value: dict[str, str]) -> None:
        self.value = {"instructions": value["instructions"]}

    def update(self, value: dict[str, str]) -> None:
        self.candidate = value["current_candidate"]


def test_the_best_epoch_changes_for_a_higher_score_or_a_tie_with_the_start() -> None:
    variable = Holder("start")
    best = BestEpoch("val_reward")
    assert best.consider(START_EPOCH, {"val_reward": 0.5}, [variable])
    variable.value, variable.candidate = {"instructions": "tied"}, "tied"
    assert best.consider(0, {"val_reward": 0.5}, [variable]), "a tie with the start keeps training"
    variable.value, variable.candidate = {"instructions": "tied again"}, "again"
    assert not best.consider(1, {"val_reward": 0.5}, [variable]), "a tie keeps the earlier epoch"
    variable.value, variable.candidate = {"instructions": "worse"}, "worse"
    assert not best.consider(2, {"val_reward": 0.25}, [variable])
    assert best.epoch == 0 and best.score == 0.5
    best.restore([variable])
    assert variable.value == {"instructions": "tied"} and variable.candidate == "tied"
    variable.value = {"instructions": "better"}
    assert best.consider(3, {"val_reward": 0.75}, [variable]) and best.epoch == 3


def test_an_epoch_without_the_figure_counts_only_when_nothing_came_before() -> None:
    best = BestEpoch("val_reward")
    assert best.consider(0, {"reward": 1.0}, [Holder("a")])
    assert best.score == -math.inf and best.to_json()["score"] is None
    assert best.consider(1, {"val_reward": 0.0}, [Holder("b")])
