"""Each "new program" template trains on the bundled SmolLM2 and traces every module.

A tiny run (4 training rows, 2 test rows, one epoch) of each template of
`studio.programs.templates` on the rows `bench/templates/run.py` measures them on:
training finishes, and each test row's trace names every module of the program,
a Branch's step saying which label it took and the branch not taken skipped. The
before/after figures are the benchmark's (docs/benchmarks.md), not this test's.
Skipped, saying why, when llama-server or the model package is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.templates.run import task
from optimizer_core.local_models import LocalModelServer, bundled_model_missing
from studio.programs import templates

MODULES = {
    "single_generator": {"answerer"},
    "draft_then_answer": {"drafter", "answerer"},
    "route_then_answer": {"router", "router_decision", "account_topic", "order_topic", "topic"},
    "answer_then_critique": {"answerer", "critic", "critic_critic", "critic_reviser"},
}


@pytest.mark.bundled_model
@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.skipif(bundled_model_missing() is not None, reason=bundled_model_missing() or "")
@pytest.mark.parametrize("name", list(MODULES))
async def test_each_template_trains_on_the_bundled_model(name: str, tmp_path: Path) -> None:
    (x_train, y_train), (x_test, y_test) = task(name, 4, 2)
    with LocalModelServer(cache_dir=tmp_path, watchdog_interval=None) as server:
        program = await templates.get(name).build(server.language_model())
        history = await program.fit(x_train, y_train, epochs=1, batch_size=4, verbose=0, seed=0)
        after = await program.evaluate(
            x_test, y_test, verbose=0, temperature=0.0, return_examples=True
        )
    assert history.history, "fit logged an epoch"
    assert len(after.examples) == 2
    for example in after.examples:
        assert {step.module for step in example.trace} == MODULES[name], example.trace
        if name == "route_then_answer":
            router = next(step for step in example.trace if step.module == "router")
            assert router.taken in (["account"], ["order"])
            skipped = {s.module for s in example.trace if s.skipped}
            assert skipped == {"account_topic", "order_topic"} - {f"{router.taken[0]}_topic"}
