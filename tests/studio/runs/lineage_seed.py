"""A succeeded OMEGA run whose events are written straight into the database, for fast tests.

The events are real: the capitals program is fitted in-process by OMEGA (scripted
language models, no server), on the run's own training split, and every optimizer
event it emits is stored as the `RunEventLogger` would store it. Crossovers happen
from the second epoch on (``merging_rate=1``).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import optimizer_core as synalinks
from optimizer_core.programs import Program
from optimizer_core.testing.students import capitals_task
from studio.runs import resources
from studio.runs.callbacks import jsonable
from studio.runs.models import Run, RunEvent
from tests.studio.runs.factories import (
    COMPILE_CONFIG,
    make_dataset,
    make_provider,
    make_version,
    program_document,
)

OMEGA = {"name": "omega", "params": {"population_size": 3, "merging_rate": 1.0, "seed": 0}}
FIT = {"epochs": 3, "batch_size": 8, "seed": 0}


class _Recorder(synalinks.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.epoch = 0

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch = epoch

    def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> None:
        # Stored at once, as the studio does: later credits do not change what was said.
        self.events.append((event, jsonable({"event": event, "epoch": self.epoch, **payload})))


def _rewriter() -> synalinks.FakeLanguageModel:
    """OMEGA's language model: each mutation or crossover writes new instructions."""
    rules = itertools.count()

    def respond(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        return {"thinking": "", "instructions": f"Name the capital city only, rule {next(rules)}."}

    return synalinks.FakeLanguageModel(responder=respond)


async def _fit(document: dict[str, Any], x: list[Any], y: list[Any]) -> tuple[Program, _Recorder]:
    _, _, student = capitals_task()
    program = Program.from_json(document)
    program.set_language_model(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.OMEGA(
            language_model=_rewriter(),
            embedding_model=synalinks.FakeEmbeddingModel(),
            **OMEGA["params"],
        ),
    )
    recorder = _Recorder()
    await program.fit(x=x, y=y, verbose=0, callbacks=[recorder], **FIT)
    return program, recorder


def seed_omega_run(owner: Any, *, name: str = "omega lineage") -> Run:
    """A succeeded OMEGA run of the capitals program with its optimizer events stored."""
    run = Run.objects.create(
        owner=owner,
        name=name,
        program_version=make_version(owner),
        dataset=make_dataset(owner),
        provider=make_provider(owner, "http://provider.invalid/v1"),
        compile_config={**COMPILE_CONFIG, "optimizer": OMEGA},
        fit_config={**FIT, "validation_split": 0.0, "evaluations": 1},
        state=Run.State.SUCCEEDED,
        current_epoch=FIT["epochs"],
    )
    x, y = resources.load_examples(run.dataset, split="train")
    program, recorder = asyncio.run(_fit(program_document(), x, y))
    run.trained_document = jsonable(program.to_json())
    run.save(update_fields=["trained_document"])
    kinds = [("state", {"state": "running"})]
    kinds += [("optimizer", payload) for _, payload in recorder.events]
    kinds += [("state", {"state": "succeeded"})]
    RunEvent.objects.bulk_create(
        RunEvent(run=run, seq=seq, kind=kind, payload=payload)
        for seq, (kind, payload) in enumerate(kinds, start=1)
    )
    return run
