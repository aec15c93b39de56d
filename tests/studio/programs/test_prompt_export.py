"""Export prompt: each Generator's messages are exactly those the engine sends."""

from __future__ import annotations

import asyncio
import json

import pytest

from optimizer_core.language_models.fake import FakeLanguageModel
from studio.programs.documents import load_program

pytestmark = pytest.mark.django_db


def test_the_exported_messages_are_what_the_engine_sends(api, make_document) -> None:
    document = make_document(two_steps=True, instructions="Answer in one word.")
    document["variables"][next(iter(document["variables"]))]["examples"] = [
        {"inputs": {"query": "Capital of Peru?"}, "outputs": {"thinking": "Lima."}, "reward": 1.0}
    ]
    created = api.post("/api/programs/", {"name": "qa", "document": document}, format="json")
    assert created.status_code == 201, created.content
    program_id = created.json()["id"]

    response = api.get(f"/api/programs/{program_id}/versions/1/prompt/")
    assert response.status_code == 200, response.content
    body = response.json()
    exported = {g["name"]: g for g in body["generators"]}
    assert set(exported) == {"think", "answer"}
    assert "Capital of Peru?" in exported["think"]["messages"][0]["content"]
    assert "Answer in one word." in exported["answer"]["text"]
    assert "{{input}}" in exported["answer"]["text"]
    assert "optimizer_core.Program.from_json" in body["python"]

    # What the engine sends for one input, through the scripted fake model.
    program = load_program(body["document"])
    fake = FakeLanguageModel(
        responder=lambda messages, schema: (
            {"thinking": "Paris."} if "thinking" in json.dumps(schema) else {"answer": "Paris"}
        )
    )
    program.set_language_model(fake)
    asyncio.run(program({"query": "Capital of France?"}))
    sent = {json.dumps(call.messages[-1]["content"]): call.messages for call in fake.calls}
    placeholder = body["input_placeholder"]
    for name, user_json in (
        ("think", json.dumps({"query": "Capital of France?"})),
        ("answer", json.dumps({"thinking": "Paris."})),
    ):
        expected = [dict(m) for m in exported[name]["messages"]]
        assert expected[-1]["content"] == placeholder
        expected[-1]["content"] = user_json
        assert sent[json.dumps(user_json)] == expected


def test_another_users_version_is_not_exported(api, other_api, program_id) -> None:
    assert api.get(f"/api/programs/{program_id}/versions/1/prompt/").status_code == 200
    assert other_api.get(f"/api/programs/{program_id}/versions/1/prompt/").status_code == 404
    assert api.get(f"/api/programs/{program_id}/versions/9/prompt/").status_code == 404
