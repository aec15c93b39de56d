"""A succeeded run's "Export prompt": the trained prompt, exactly as the engine sends it."""

from __future__ import annotations

import asyncio
import json

import pytest

from optimizer_core.language_models.fake import FakeLanguageModel
from studio.programs.documents import load_program
from studio.runs.models import Run
from tests.studio.deployments.factories import EXAMPLES, make_provider, make_run

pytestmark = pytest.mark.django_db


def test_a_trained_runs_prompt_carries_its_examples_as_the_engine_sends_them(api, user) -> None:
    run = make_run(user, make_provider(user, "http://127.0.0.1:9/v1"))

    response = api.get(f"/api/runs/{run.pk}/prompt/")

    assert response.status_code == 200, response.content
    body = response.json()
    (generator,) = body["generators"]
    system = generator["messages"][0]["content"]
    for country, city in EXAMPLES:  # the trained few-shot examples are in the prompt
        assert country in system and city in system
    assert generator["messages"][-1] == {"role": "user", "content": body["input_placeholder"]}
    assert body["document"] == run.trained_document

    program = load_program(body["document"])
    fake = FakeLanguageModel(responder=lambda messages, schema: {"answer": "Lima"})
    program.set_language_model(fake)
    question = {"query": "What is the capital of Peru?"}
    asyncio.run(program(question))
    (call,) = fake.calls
    expected = [dict(message) for message in generator["messages"]]
    expected[-1]["content"] = json.dumps(question)
    assert call.messages == expected


def test_an_unfinished_or_anothers_run_has_no_prompt_to_export(api, other_api, user) -> None:
    provider = make_provider(user, "http://127.0.0.1:9/v1")
    running = make_run(user, provider, state=Run.State.RUNNING)
    response = api.get(f"/api/runs/{running.pk}/prompt/")
    assert response.status_code == 409
    assert "only a succeeded run" in response.json()["detail"]

    finished = make_run(user, provider)
    assert other_api.get(f"/api/runs/{finished.pk}/prompt/").status_code == 404
