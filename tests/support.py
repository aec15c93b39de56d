"""Data models and helpers shared by the tests (module level, so saved programs find them)."""

from __future__ import annotations

from typing import Any

import numpy as np

import optimizer_core as synalinks
from optimizer_core.testing.students import capitals_task


class Query(synalinks.DataModel):
    query: str = synalinks.Field(description="The user's question")


class Answer(synalinks.DataModel):
    answer: str = synalinks.Field(description="The answer")


def capitals(n: int | None = None) -> tuple[np.ndarray, np.ndarray, Any]:
    """The capitals task as DataModel arrays, and its few-shot student responder."""
    questions, answers, student = capitals_task()
    x = np.array([Query(**q) for q in questions][:n], dtype="object")
    y = np.array([Answer(**a) for a in answers][:n], dtype="object")
    return x, y, student


async def build_program(
    lm: Any, *, cot: bool = False, name: str | None = None
) -> synalinks.Program:
    inputs = synalinks.Input(data_model=Query)
    module = synalinks.ChainOfThought if cot else synalinks.Generator
    outputs = await module(data_model=Answer, language_model=lm)(inputs)
    return synalinks.Program(
        inputs=inputs, outputs=outputs, name=name, description="Answer questions"
    )
