"""Program documents built from real optimizer_core programs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import optimizer_core as oc


class Query(oc.DataModel):
    query: str


class Answer(oc.DataModel):
    answer: str


class Thought(oc.DataModel):
    thinking: str


def build_document(*, two_steps: bool = False, instructions: str | None = None) -> dict[str, Any]:
    async def build() -> oc.Program:
        lm = oc.LanguageModel(model="openai/x")
        inputs = oc.Input(data_model=Query, name="query")
        hidden = inputs
        if two_steps:
            hidden = await oc.Generator(data_model=Thought, language_model=lm, name="think")(inputs)
        outputs = await oc.Generator(
            data_model=Answer, language_model=lm, name="answer", instructions=instructions
        )(hidden)
        return oc.Program(inputs=inputs, outputs=outputs, name="qa")

    return asyncio.run(build()).to_json()


@pytest.fixture
def document() -> dict[str, Any]:
    return build_document()


@pytest.fixture
def make_document() -> Callable[..., dict[str, Any]]:
    return build_document


@pytest.fixture
def program_id(api, document) -> int:
    response = api.post(
        "/api/programs/", {"name": "qa", "document": document, "layout": {"a": 1}}, format="json"
    )
    assert response.status_code == 201, response.content
    return int(response.json()["id"])
