"""`evaluate(..., temperature=0.0, seed=...)`: the calls are pinned, the modules are not changed."""

from __future__ import annotations

import asyncio

import pytest

import optimizer_core as synalinks
from optimizer_core.language_models import _litellm
from optimizer_core.language_models.call_overrides import overrides_for, pin_calls
from tests.support import Answer, Query, capitals


async def two_generators(lm: synalinks.FakeLanguageModel) -> synalinks.Program:
    inputs = synalinks.Input(data_model=Query)
    first = synalinks.Generator(data_model=Answer, language_model=lm, temperature=0.9)
    second = synalinks.ChainOfThought(data_model=Answer, language_model=lm, temperature=0.7)
    outputs = await second(await first(inputs))
    program = synalinks.Program(inputs=inputs, outputs=outputs)
    program.compile(reward=synalinks.rewards.ExactMatch(in_mask=["answer"]))
    return program


async def test_every_call_of_the_evaluation_carries_the_pinned_temperature_and_seed() -> None:
    x, y, _ = capitals(4)
    lm = synalinks.FakeLanguageModel(temperature=0.5)
    program = await two_generators(lm)

    await program.evaluate(x, y, verbose=0, temperature=0.0, seed=1234)

    assert len(lm.calls) == 8  # two modules, four rows
    assert {call.temperature for call in lm.calls} == {0.0}
    assert {call.seed for call in lm.calls} == {1234}
    # The modules and the model keep their own settings.
    assert [m.temperature for m in program.modules[1:]] == [0.9, 0.7]
    assert lm.temperature == 0.5


async def test_after_the_evaluation_calls_use_their_own_temperature_again() -> None:
    x, y, _ = capitals(2)
    lm = synalinks.FakeLanguageModel()
    program = await two_generators(lm)

    await program.evaluate(x, y, verbose=0, temperature=0.0, seed=7)
    lm.calls.clear()
    await program.evaluate(x, y, verbose=0)

    assert sorted({call.temperature for call in lm.calls}) == [0.7, 0.9]
    assert {call.seed for call in lm.calls} == {None}


async def test_a_temperature_alone_pins_no_seed() -> None:
    x, y, _ = capitals(2)
    lm = synalinks.FakeLanguageModel()
    program = await two_generators(lm)

    await program.evaluate(x, y, verbose=0, temperature=0.0)

    assert {(call.temperature, call.seed) for call in lm.calls} == {(0.0, None)}


async def test_a_concurrent_unpinned_evaluation_is_not_affected() -> None:
    x, y, _ = capitals(3)
    pinned_lm = synalinks.FakeLanguageModel(latency=0.01)
    free_lm = synalinks.FakeLanguageModel(latency=0.01)
    pinned = await two_generators(pinned_lm)
    free = await two_generators(free_lm)

    await asyncio.gather(
        pinned.evaluate(x, y, verbose=0, temperature=0.0, seed=3),
        free.evaluate(x, y, verbose=0),
    )

    assert {call.temperature for call in pinned_lm.calls} == {0.0}
    assert sorted({call.temperature for call in free_lm.calls}) == [0.7, 0.9]
    assert {call.seed for call in free_lm.calls} == {None}


async def test_pins_apply_only_to_the_models_named() -> None:
    mine, other = synalinks.FakeLanguageModel(), synalinks.FakeLanguageModel()
    with pin_calls([mine], temperature=0.0, seed=5):
        assert overrides_for(mine) is not None and overrides_for(other) is None
        await mine([{"role": "user", "content": "hi"}], temperature=1.0)
        await other([{"role": "user", "content": "hi"}], temperature=1.0)
    assert overrides_for(mine) is None
    assert (mine.calls[0].temperature, mine.calls[0].seed) == (0.0, 5)
    assert (other.calls[0].temperature, other.calls[0].seed) == (1.0, None)


def test_pins_are_checked() -> None:
    with pytest.raises(ValueError, match="`temperature`"), pin_calls([], temperature=-1.0):
        pass
    with pytest.raises(ValueError, match="`seed`"), pin_calls([], seed="7"):  # type: ignore[arg-type]
        pass


def test_the_seed_goes_only_to_providers_that_take_one() -> None:
    assert _litellm.takes_param("openai/gpt-4o-mini", "seed")
    assert not _litellm.takes_param("anthropic/claude-3-5-sonnet-20240620", "seed")
    assert not _litellm.takes_param("fake/scripted", "seed")


async def test_a_pinned_seed_is_part_of_the_cache_key(tmp_path: object) -> None:
    lm = synalinks.FakeLanguageModel(responses=["a", "b", "c"], cache_dir=str(tmp_path))
    messages = [{"role": "user", "content": "hi"}]
    assert await lm(messages, temperature=0.0) == "a"
    with pin_calls([lm], temperature=0.0, seed=1):
        assert await lm(messages) == "b"
        assert await lm(messages) == "b"  # cached under the pinned seed
    assert await lm(messages, temperature=0.0) == "a"  # the unpinned key is unchanged
