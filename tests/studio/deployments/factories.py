"""Rows the deployments tests need: runs with a trained (or untrained) capitals program.

A "trained" document is the capitals program whose Generator holds three correct
few-shot examples: the scripted student then always answers the bare city
("Paris"), where the untrained program mostly answers in a sentence ("The capital
of France is Paris."). Written by hand, so most tests need no training run;
`test_predict.py` also deploys a program trained for real.
"""

from __future__ import annotations

import copy
from typing import Any

from studio.runs.models import Run
from tests.studio.runs.factories import (
    COMPILE_CONFIG,
    make_dataset,
    make_provider,
    make_version,
    program_document,
)

__all__ = ["make_dataset", "make_provider", "make_run", "make_version", "trained_document"]

EXAMPLES = [
    ("Germany", "Berlin"),
    ("Italy", "Rome"),
    ("Spain", "Madrid"),
]


def trained_document() -> dict[str, Any]:
    document = copy.deepcopy(program_document())
    (state,) = document["variables"].values()  # the one Generator's (its name varies)
    state["examples"] = [
        {"inputs": {"query": f"What is the capital of {country}?"}, "outputs": {"answer": city}}
        for country, city in EXAMPLES
    ]
    return document


def make_run(
    owner: Any,
    provider: Any,
    *,
    trained: bool = True,
    state: str = Run.State.SUCCEEDED,
    name: str = "",
) -> Run:
    """A finished run whose trained document is the trained (or the untrained) program."""
    version = make_version(owner)
    return Run.objects.create(
        owner=owner,
        name=name,
        program_version=version,
        dataset=make_dataset(owner),
        provider=provider,
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
        state=state,
        trained_document=(trained_document() if trained else program_document())
        if state == Run.State.SUCCEEDED
        else None,
    )
