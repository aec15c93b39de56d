"""End to end on the bundled SmolLM2 through litellm and the local llama-server.

Structured output valid for a schema, several requests decoded at once in the
server's parallel slots, and training: a BANKING77 subset (4 intents, 12
training rows, 1 epoch, batch size 4) with RandomFewShot. Skipped when
``llama-server`` or the model package is not installed. About a minute on 2 cores.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path
from typing import Annotated, Literal

import pydantic
import pytest

import optimizer_core as synalinks
from optimizer_core.datasets import banking77
from optimizer_core.local_models import LocalModelServer, bundled_model_missing
from optimizer_core.local_models.installation import llama_server_path
from optimizer_core.local_models.served_model import SERVED_TYPE, quantize_tool
from tests.support import BANKING77_FILES, SHARED, missing_shared

DATA = SHARED / "data"
INTENTS = ["card_arrival", "lost_or_stolen_card", "exchange_rate", "top_up_failed"]


def _server_skip_reason() -> str | None:
    return bundled_model_missing()


def _skip_reason() -> str | None:
    return _server_skip_reason() or missing_shared(*BANKING77_FILES)


class Ticket(synalinks.DataModel):
    intent: Literal["card_arrival", "lost_or_stolen_card", "exchange_rate", "top_up_failed"]
    urgency: int = pydantic.Field(ge=1, le=5, description="1 (low) to 5 (urgent)")
    summary: str = pydantic.Field(max_length=60, description="The request in a few words")
    tags: list[Annotated[str, pydantic.StringConstraints(max_length=20)]] = pydantic.Field(
        max_length=3, description="At most 3 keywords"
    )


TICKETS = [
    "My card still has not arrived after two weeks.",
    "Someone stole my wallet with my card in it!",
    "What rate do you use to convert euros to dollars?",
    "I tried to top up with my bank card but it failed.",
    "Where is my new card? I ordered it last month.",
    "I lost my card somewhere in town this morning.",
    "Is the exchange rate better on weekends?",
    "Top up declined again, please help.",
]


def ticket_messages(text: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Classify the customer's message into a support ticket."},
        {"role": "user", "content": json.dumps({"message": text})},
    ]


@pytest.mark.bundled_model
@pytest.mark.timeout(240)
@pytest.mark.skipif(_server_skip_reason() is not None, reason=_server_skip_reason() or "")
async def test_structured_output_is_valid_for_the_schema(tmp_path: Path) -> None:
    with LocalModelServer(cache_dir=tmp_path, watchdog_interval=None) as server:
        command = server.command_line()
        if quantize_tool(llama_server_path()) is not None:  # built by `make`
            # The server loads the Q8_0 copy of the package's Q4_1 weights.
            assert command[command.index("--model") + 1] == server.model_file
            assert f".{SERVED_TYPE}." in Path(server.model_file).name
        # No retries: every answer must be valid as the grammar wrote it. The schema
        # bounds every string, so the answer ends well within max_tokens.
        lm = server.language_model(temperature=0.0, max_tokens=256, max_retries=0)
        answers = await asyncio.gather(
            *(lm(ticket_messages(text), data_model=Ticket) for text in TICKETS)
        )
    assert lm.usage.failures == 0
    for answer in answers:
        assert isinstance(answer, Ticket)
        assert Ticket.model_validate_json(answer.model_dump_json()) == answer


@pytest.mark.bundled_model
@pytest.mark.timeout(240)
@pytest.mark.skipif(_server_skip_reason() is not None, reason=_server_skip_reason() or "")
async def test_concurrent_requests_are_decoded_together_in_the_slots(tmp_path: Path) -> None:
    with LocalModelServer(parallel=4, cache_dir=tmp_path, watchdog_interval=None) as server:
        lm = server.language_model(temperature=0.0, max_tokens=256, max_retries=0)
        assert lm.max_concurrency == 4
        slots_url = server.api_base.removesuffix("/v1") + "/slots"
        busy: list[int] = []

        def count_busy() -> int:
            with urllib.request.urlopen(slots_url, timeout=5) as response:
                return sum(bool(slot["is_processing"]) for slot in json.load(response))

        async def watch() -> None:
            while True:
                busy.append(await asyncio.to_thread(count_busy))
                await asyncio.sleep(0.02)

        watcher = asyncio.create_task(watch())
        try:
            answers = await asyncio.gather(
                *(lm(ticket_messages(text), data_model=Ticket) for text in TICKETS)
            )
        finally:
            watcher.cancel()
        assert len(answers) == len(TICKETS) and lm.usage.failures == 0
        assert lm.usage.snapshot()["max_in_flight"] == 4
        assert len(busy) >= 1 and max(busy) >= 2, busy


@pytest.mark.bundled_model
@pytest.mark.timeout(240)
@pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")
async def test_random_few_shot_trains_on_the_bundled_model(tmp_path: Path) -> None:
    (x_train, y_train), (x_test, _) = banking77.load_data(path=DATA, categories=INTENTS, limit=12)
    intent_model = banking77.get_output_data_model(categories=INTENTS, path=DATA)

    with LocalModelServer(cache_dir=tmp_path, watchdog_interval=None) as server:
        lm = server.language_model(temperature=0.0, max_tokens=64)
        inputs = synalinks.Input(data_model=banking77.get_input_data_model())
        outputs = await synalinks.Generator(data_model=intent_model, language_model=lm)(inputs)
        program = synalinks.Program(inputs=inputs, outputs=outputs, name="banking")
        program.compile(
            reward=synalinks.rewards.ExactMatch(in_mask=["intent"]),
            optimizer=synalinks.optimizers.RandomFewShot(nb_min_examples=1, nb_max_examples=2),
        )
        started = time.perf_counter()
        history = await program.fit(x=x_train, y=y_train, epochs=1, batch_size=4, verbose=0)
        fit_s = time.perf_counter() - started
        predictions = await program.predict(x=x_test[:4], verbose=0)

    assert "reward" in history.history and len(history.history["reward"]) == 1
    assert lm.usage.calls >= 12 and lm.usage.failures == 0
    assert len(predictions) == 4
    for prediction in predictions:
        assert prediction is not None
        assert prediction.get_json()["intent"] in INTENTS
    assert fit_s < 120


class Numbers(synalinks.DataModel):
    numbers: str = pydantic.Field(description="Every number, separated by commas")


ENDLESS = [
    {"role": "system", "content": "Write every number from 1 to 100000, separated by commas."},
    {"role": "user", "content": "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"},
]


@pytest.mark.bundled_model
@pytest.mark.timeout(300)
@pytest.mark.skipif(_server_skip_reason() is not None, reason=_server_skip_reason() or "")
async def test_a_prompt_that_writes_for_ever_ends_within_its_bound(tmp_path: Path) -> None:
    # Counting to 100,000 makes SmolLM2 write until its context is full (4,096 tokens,
    # minutes on 2 cores) unless something stops it: here the grammar closes the
    # free string at the model's free_text_length, and max_tokens ends the free text.
    with LocalModelServer(cache_dir=tmp_path, watchdog_interval=None) as server:
        # A fresh server's first request, and one sent beside another (two slots in a
        # batch), sampled differently from a lone request on a warm server: the same
        # greedy request answered "numbers": "" there, and counted here. So one warm-up
        # call on an instance of its own, then the measured calls one after the other.
        await server.language_model(temperature=0.0, max_retries=0)(ENDLESS, data_model=Numbers)
        lm = server.language_model(temperature=0.0, max_retries=0)
        started = time.perf_counter()
        structured = await lm(ENDLESS, data_model=Numbers)
        text = await lm(ENDLESS)
        wall_s = time.perf_counter() - started
    records = {record.finish_reason: record for record in lm.usage.records}
    ends = [(r.finish_reason, r.completion_tokens, round(r.latency_s)) for r in records.values()]
    print(f"runaway: {wall_s:.0f} s in all; (finish_reason, tokens, s) per call: {ends}")
    # The structured answer parses: the grammar ended the string at its bound.
    assert isinstance(structured, Numbers), structured
    assert 0 < len(structured.numbers) <= lm.free_text_length
    assert structured.numbers.count(",") > 50  # it kept counting until the bound
    # The free text was cut at max_tokens, and is what was written so far.
    assert isinstance(text, str) and text
    cut = records["length"]
    assert cut.completion_tokens == lm.free_text_length and cut.ok
    assert all(record.completion_tokens <= answer_cap(lm) for record in lm.usage.records)


def answer_cap(lm: synalinks.LanguageModel) -> int:
    """The largest bound either request carried: the schema's with the free string's length."""
    from optimizer_core.language_models.bounds import answer_bound

    return answer_bound(Numbers.model_json_schema(), string_length=lm.free_text_length)
