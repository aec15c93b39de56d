"""FakeEmbeddingModel: deterministic vectors through the real batching and caching path."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import pytest

from optimizer_core.language_models import FakeEmbeddingModel


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


async def test_identical_texts_get_identical_vectors_and_shared_words_score_higher() -> None:
    em = FakeEmbeddingModel(dim=128)
    cat, cat_again, similar, unrelated = await em(
        ["The cat sat", "the cat sat", "the cat slept", "stock prices fell"]
    )
    assert cat == cat_again
    assert len(cat) == 128
    assert cosine(cat, similar) > cosine(cat, unrelated)


async def test_texts_are_batched_and_each_text_is_sent_once() -> None:
    em = FakeEmbeddingModel(batch_size=2)
    vectors = await em(["a", "b", "c", "a", "d"])
    assert len(vectors) == 5 and vectors[0] == vectors[3]
    assert sorted(len(batch) for batch in em.calls) == [2, 2]
    assert em.usage.calls == 2
    assert em.usage.prompt_tokens > 0


async def test_second_call_is_served_from_memory() -> None:
    em = FakeEmbeddingModel()
    first = await em(["hello world"])
    second = await em(["hello world"])
    assert first == second
    assert len(em.calls) == 1
    assert em.usage.cached_calls == 1


async def test_only_unknown_texts_are_sent() -> None:
    em = FakeEmbeddingModel()
    await em(["known"])
    await em(["known", "new"])
    assert em.calls == [["known"], ["new"]]


async def test_returned_vectors_are_copies() -> None:
    em = FakeEmbeddingModel()
    first = await em(["text"])
    first[0][0] = 99.0
    assert (await em(["text"]))[0][0] != 99.0


async def test_disk_cache_survives_a_new_instance(tmp_path: Path) -> None:
    em = FakeEmbeddingModel(cache_dir=tmp_path)
    vectors = await em(["persisted text", "another"])
    reopened = FakeEmbeddingModel(cache_dir=tmp_path)
    assert await reopened(["persisted text", "another"]) == vectors
    assert reopened.calls == []


async def test_concurrency_is_bounded() -> None:
    em = FakeEmbeddingModel(batch_size=1, max_concurrency=2, latency=0.02)
    await asyncio.gather(*(em([f"text {i}"]) for i in range(6)))
    assert em.usage.max_in_flight == 2


async def test_empty_input_and_wrong_types() -> None:
    em = FakeEmbeddingModel()
    assert await em([]) == []
    with pytest.raises(TypeError, match="`texts`"):
        await em("a bare string")  # type: ignore[arg-type]


def test_config_round_trips() -> None:
    em = FakeEmbeddingModel(dim=16, batch_size=4, max_retries=1)
    config = em.get_config()
    json.dumps(config)
    rebuilt = FakeEmbeddingModel.from_config(config)
    assert rebuilt.get_config() == config
    assert rebuilt.dim == 16


def test_arguments_are_validated_by_name() -> None:
    with pytest.raises(ValueError, match="`dim`"):
        FakeEmbeddingModel(dim=0)
    with pytest.raises(ValueError, match="`batch_size`"):
        FakeEmbeddingModel(batch_size=0)
