"""A Generator's sampling settings in a program document: checked, built, sent.

The editor writes ``max_tokens``, ``top_p``, ``top_k`` and ``reasoning_effort`` into a
Generator's (or ChainOfThought's) config, beside ``temperature``. A value out of range
is a 400 at that field's path whose message names the module; a valid one reaches the
module the studio builds, and the provider's request when the program is tried.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from studio.programs.documents import load_program
from studio.providers.models import Provider
from tests.studio.runs.factories import make_version, program_document

pytestmark = pytest.mark.django_db

SETTINGS = {"max_tokens": 256, "top_p": 0.5, "top_k": 40, "reasoning_effort": "low"}


def with_settings(document: dict[str, Any], index: int = 1, **settings: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    changed["program"]["modules"][index]["module"]["config"].update(settings)
    return changed


def errors_of(response: Any) -> list[dict[str, str]]:
    assert response.status_code == 400, response.content
    return response.json()["errors"]


def test_a_document_with_sampling_settings_builds_its_generator_with_them(api, document):
    changed = with_settings(document, **SETTINGS)
    response = api.post("/api/programs/validate/", {"document": changed}, format="json")
    assert response.json() == {"valid": True, "errors": []}
    module = load_program(changed).get_module("answer")
    assert {key: getattr(module, key) for key in SETTINGS} == SETTINGS


def test_a_chain_of_thought_takes_them_too(api, make_document):
    document = make_document(two_steps=True)
    entry = document["program"]["modules"][1]
    assert entry["name"] == "think"
    entry["module"]["class_name"] = "ChainOfThought"
    entry["module"]["module"] = "optimizer_core.modules.chain_of_thought"
    entry["module"]["registered_name"] = "optimizer_core.modules.chain_of_thought.ChainOfThought"
    changed = with_settings(document, **SETTINGS)
    module = load_program(changed).get_module("think")
    assert type(module).__name__ == "ChainOfThought"
    assert {key: getattr(module, key) for key in SETTINGS} == SETTINGS


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("top_p", 1.5, "(0, 1]"),
        ("top_p", 0, "(0, 1]"),
        ("max_tokens", 0, ">= 1"),
        ("max_tokens", 2.5, "int"),
        ("top_k", 0, ">= 1"),
        ("top_k", "many", "int"),
        ("reasoning_effort", "extreme", "'high'"),
    ],
)
def test_a_setting_out_of_range_is_refused_naming_the_module_and_field(
    api, document, field, value, said
):
    broken = with_settings(document, **{field: value})
    errors = errors_of(api.post("/api/programs/validate/", {"document": broken}, format="json"))
    assert [error["path"] for error in errors] == [f"program.modules[1].module.config.{field}"]
    message = errors[0]["message"]
    assert "'answer'" in message and field in message and said in message


def test_saving_a_version_with_a_bad_setting_stores_nothing(api, program_id, document):
    broken = with_settings(document, top_p=1.5)
    response = api.post(
        f"/api/programs/{program_id}/versions/", {"document": broken}, format="json"
    )
    assert errors_of(response)[0]["path"] == "program.modules[1].module.config.top_p"
    versions = api.get(f"/api/programs/{program_id}/versions/").json()
    assert [v["number"] for v in versions["results"]] == [1]


@pytest.fixture
def server(allow_outgoing):
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request) as running:
        allow_outgoing(running)
        yield running


@pytest.mark.litellm
def test_trying_a_program_sends_its_settings_to_the_provider(api, user, server):
    Provider.objects.create(
        owner=user, name="scripted", model="openai/scripted", api_base=server.base_url,
        is_default=True, params={"max_retries": 1, "backoff_base": 0.01},
    )  # fmt: skip
    version = make_version(user)
    document = program_document()
    index = next(
        i
        for i, entry in enumerate(document["program"]["modules"])
        if entry["module"]["class_name"] == "Generator"
    )
    document = with_settings(document, index, temperature=0.3, max_tokens=300, top_p=0.5)
    response = api.post(
        f"/api/programs/{version.program_id}/try/",
        {"input": {"query": "What is the capital of France?"}, "document": document},
        format="json",
    )
    assert response.status_code == 200, response.content
    sent = server.stats.requests[-1]
    assert (sent["temperature"], sent["max_tokens"], sent["top_p"]) == (0.3, 300, 0.5)
