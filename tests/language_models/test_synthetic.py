"""The shared synthetic answers: hashed bag-of-words embeddings and schema filling."""

from __future__ import annotations

import math
from typing import Literal

import pydantic
import pytest

from optimizer_core.language_models.synthetic import hashed_bag_of_words, schema_filler


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_embedding_is_unit_length_and_deterministic() -> None:
    vector = hashed_bag_of_words("The cat sat on the mat", 64)
    assert len(vector) == 64
    assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0)
    assert vector == hashed_bag_of_words("the CAT sat, on the mat!", 64)


def test_shared_words_mean_higher_similarity() -> None:
    cat = hashed_bag_of_words("the cat sat on the mat", 256)
    similar = hashed_bag_of_words("a cat sat on a rug", 256)
    unrelated = hashed_bag_of_words("quarterly revenue grew strongly", 256)
    assert cosine(cat, similar) > cosine(cat, unrelated)


def test_empty_text_still_has_a_unit_vector() -> None:
    assert math.isclose(sum(v * v for v in hashed_bag_of_words("", 8)), 1.0)


class Inner(pydantic.BaseModel):
    score: float
    tags: list[str]


class Outer(pydantic.BaseModel):
    name: str
    count: int
    flag: bool
    mode: Literal["fast", "slow"]
    inner: Inner
    maybe: Inner | None = None
    items: list[Inner] = pydantic.Field(min_length=1)


def test_filled_object_validates_against_the_pydantic_model() -> None:
    filled = schema_filler(Outer.model_json_schema())
    Outer.model_validate(filled)
    assert filled["name"] == "" and filled["count"] == 0 and filled["flag"] is False
    assert filled["mode"] == "fast"
    assert filled["inner"] == {"score": 0, "tags": []}
    assert filled["maybe"] == {"score": 0, "tags": []}
    assert len(filled["items"]) == 1


def test_bounds_are_respected() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 3},
            "s": {"type": "string", "minLength": 2},
            "c": {"const": "fixed"},
        },
    }
    assert schema_filler(schema) == {"n": 3, "s": "xx", "c": "fixed"}


def test_invalid_dimension_is_rejected() -> None:
    with pytest.raises(ValueError, match="`dim`"):
        hashed_bag_of_words("x", 0)
