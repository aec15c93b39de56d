"""Data models and helpers shared by the tests (module level, so saved programs find them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

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


# The spec and the public data sets live in shared/ beside the clone, never inside it.
# CI has them; a bare clone does not, and the tests that read them skip there.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"

GSM8K_FILES = ("data/gsm8k/train.jsonl", "data/gsm8k/test.jsonl")
BANKING77_FILES = (
    "data/banking77/train.csv",
    "data/banking77/test.csv",
    "data/banking77/categories.json",
)


def missing_shared(*relative: str) -> str | None:
    """Why a test reading these ``../shared`` files cannot run (naming them), or None."""
    missing = [str(SHARED / name) for name in relative if not (SHARED / name).exists()]
    if not missing:
        return None
    return f"needs {', '.join(missing)} (the shared/ folder beside the clone; CI has it)"


def require_shared(*relative: str) -> Path:
    """Skip the calling test unless these ``../shared`` files exist; return the shared folder."""
    reason = missing_shared(*relative)
    if reason is not None:
        pytest.skip(reason)
    return SHARED
