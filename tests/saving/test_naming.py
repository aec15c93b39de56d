"""The one name normalisation of every lookup, snake_case names and labels."""

from __future__ import annotations

import pytest

from optimizer_core.saving.naming import label, lookup_key, snake_case


@pytest.mark.parametrize(
    ("name", "key", "snake", "shown"),
    [
        ("LMAsJudge", "lmasjudge", "lm_as_judge", "LM as judge"),
        ("F1Score", "f1score", "f1_score", "F1 score"),
        ("OMEGA", "omega", "omega", "OMEGA"),
        ("RandomFewShot", "randomfewshot", "random_few_shot", "Random few shot"),
        ("nb_max_examples", "nbmaxexamples", "nb_max_examples", "Nb max examples"),
    ],
)
def test_naming(name: str, key: str, snake: str, shown: str) -> None:
    assert lookup_key(name) == key
    assert lookup_key(snake) == key
    assert snake_case(name) == snake
    assert label(name) == shown
