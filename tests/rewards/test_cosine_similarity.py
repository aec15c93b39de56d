"""CosineSimilarity with the hashed bag-of-words FakeEmbeddingModel."""

from __future__ import annotations

import json

import pytest

from optimizer_core.datamodels import DataModel
from optimizer_core.language_models import FakeEmbeddingModel
from optimizer_core.rewards import CosineSimilarity


class Answer(DataModel):
    thinking: str
    answer: str


async def test_identical_answers_score_one() -> None:
    reward = CosineSimilarity(embedding_model=FakeEmbeddingModel(dim=64), in_mask=["answer"])

    score = await reward(
        Answer(thinking="a", answer="the cat sat on the mat"),
        Answer(thinking="b", answer="the cat sat on the mat"),
    )

    assert score == 1.0


async def test_related_answer_scores_higher_than_unrelated_and_below_one() -> None:
    reward = CosineSimilarity(embedding_model=FakeEmbeddingModel(dim=64))
    gold = {"answer": "the cat sat on the mat"}

    related = await reward(gold, {"answer": "the cat sat on a chair"})
    unrelated = await reward(gold, {"answer": "quantum chromodynamics lecture"})

    assert unrelated < related < 1.0
    assert unrelated >= 0.0


async def test_fields_are_averaged_and_a_missing_field_scores_zero() -> None:
    reward = CosineSimilarity(embedding_model=FakeEmbeddingModel(dim=64))

    score = await reward({"answer": "Paris", "city": "Lyon"}, {"answer": "Paris"})

    assert score == 0.5


async def test_all_texts_of_a_call_go_in_one_batch() -> None:
    embedder = FakeEmbeddingModel(dim=64)
    reward = CosineSimilarity(embedding_model=embedder)

    await reward(
        {"answer": "red apple", "colour": {"name": "crimson"}},
        {"answer": "green apple", "colour": {"name": "scarlet"}},
    )

    assert len(embedder.calls) == 1
    assert sorted(embedder.calls[0]) == ["crimson", "green apple", "red apple", "scarlet"]


async def test_none_prediction_scores_zero_without_embedding() -> None:
    embedder = FakeEmbeddingModel(dim=64)

    assert await CosineSimilarity(embedding_model=embedder)({"answer": "x"}, None) == 0.0
    assert embedder.calls == []


def test_embedding_model_is_required() -> None:
    with pytest.raises(ValueError, match="`embedding_model`"):
        CosineSimilarity()


async def test_config_round_trip_serialises_the_model() -> None:
    reward = CosineSimilarity(
        embedding_model=FakeEmbeddingModel(dim=32), name="cos", in_mask=["answer"]
    )

    config = json.loads(json.dumps(reward.get_config()))
    rebuilt = CosineSimilarity.from_config(config)

    assert config["embedding_model"]["class_name"] == "FakeEmbeddingModel"
    assert isinstance(rebuilt.embedding_model, FakeEmbeddingModel)
    assert rebuilt.embedding_model.dim == 32
    assert rebuilt.get_config() == config
    assert await rebuilt({"answer": "x y"}, {"answer": "x y"}) == 1.0
