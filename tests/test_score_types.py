"""Score scales: their levels, names and normalisation to [0, 1]."""

from __future__ import annotations

import enum

import pytest

import optimizer_core as synalinks
from optimizer_core import saving
from optimizer_core.score_types import (
    get_score_type,
    normalize_score,
    score_levels,
    score_type_name,
    snap_to_level,
)


def test_the_reference_scales_and_their_sizes() -> None:
    assert len(synalinks.Score) == 11
    assert len(synalinks.FineScore) == 21
    assert [len(synalinks.Rating), len(synalinks.Rating10), len(synalinks.Rating20)] == [5, 10, 20]
    assert synalinks.Score.GOOD == 0.9
    assert synalinks.FineScore.HIGH == 0.75
    assert synalinks.Rating.FOUR == 4


def test_normalisation_maps_the_lowest_level_to_0_and_the_highest_to_1() -> None:
    assert normalize_score(synalinks.Rating.THREE, synalinks.Rating) == 0.5
    assert normalize_score(7, synalinks.Rating10) == pytest.approx(6 / 9)
    assert normalize_score(0.3, synalinks.Score) == pytest.approx(0.3)


def test_snap_to_level_picks_the_nearest_and_refuses_out_of_range() -> None:
    assert snap_to_level(0.73, synalinks.Score) == pytest.approx(0.7)
    assert snap_to_level(3.5, synalinks.Rating) == 4
    with pytest.raises(ValueError, match="between 1 and 5"):
        snap_to_level(0.9, synalinks.Rating)


def test_a_registered_enum_of_numbers_is_a_scale_found_by_its_registered_name() -> None:
    @saving.register_synalinks_serializable(package="Tests")
    class Stars(int, enum.Enum):
        ONE = 1
        TWO = 2
        THREE = 3

    assert get_score_type(score_type_name(Stars)) is Stars
    assert score_levels(Stars) == [1, 2, 3]


def test_none_is_the_default_scale_and_a_non_scale_is_refused() -> None:
    class Colour(enum.Enum):
        RED = "red"
        BLUE = "blue"

    assert get_score_type(None) is synalinks.Score
    with pytest.raises(ValueError, match="Enum class whose members are numbers"):
        get_score_type(Colour)
