"""The studio's demo task learns on the bundled SmolLM2 (short: 16 training, 24 test rows).

The support-ticket topics (`optimizer_core.datasets.support_tickets`) are what
`make run` seeds as the demo. Untrained, the 135M model does not know the four
topic words and scores 0 at temperature 0; one epoch of RandomFewShot with
labelled examples shows them. The full measurement (100 test rows, a paired 95%
interval) is in docs/benchmarks.md; this checks the direction on a few rows.
Skipped, saying why, when llama-server or the model package is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import optimizer_core as synalinks
from optimizer_core.datasets import support_tickets
from optimizer_core.local_models import LocalModelServer, bundled_model_missing


def _skip_reason() -> str | None:
    return bundled_model_missing()


@pytest.mark.bundled_model
@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")
async def test_the_demo_task_learns_on_the_bundled_model(tmp_path: Path) -> None:
    (x_train, y_train), (x_test, y_test) = support_tickets.load_data()
    x_train, y_train, x_test, y_test = x_train[:16], y_train[:16], x_test[:24], y_test[:24]

    with LocalModelServer(cache_dir=tmp_path, watchdog_interval=None) as server:
        lm = server.language_model()
        inputs = synalinks.Input(data_model=support_tickets.SupportMessage)
        outputs = await synalinks.Generator(
            data_model=support_tickets.SupportTopic, language_model=lm
        )(inputs)
        program = synalinks.Program(inputs=inputs, outputs=outputs, name="support_topics")
        program.compile(
            reward=synalinks.rewards.ExactMatch(),
            optimizer=synalinks.optimizers.RandomFewShot(
                nb_min_examples=3, nb_max_examples=3, seed=0
            ),
        )
        before = await program.evaluate(x_test, y_test, verbose=0, temperature=0.0)
        await program.fit(x_train, y_train, epochs=1, batch_size=8, verbose=0, seed=0)
        after = await program.evaluate(x_test, y_test, verbose=0, temperature=0.0)

    examples = program.trainable_variables[0].get("examples")
    assert {e["outputs"]["topic"] for e in examples} <= set(support_tickets.TOPICS)
    assert len({e["outputs"]["topic"] for e in examples}) == 3, "three topics shown"
    assert before["reward"] <= 0.1, before
    assert after["reward"] >= before["reward"] + 0.2, (before, after)
