"""Documents of programs that branch and merge: validation, the try pane's trace, storing."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

import optimizer_core as oc
from optimizer_core.testing.scripted_server import ScriptedServer
from studio.programs.documents import storable_document, validate_document
from studio.providers.models import Provider
from tests.studio.programs.conftest import Answer, Query

pytestmark = pytest.mark.django_db


def branch_document(model: str = "openai/x") -> dict[str, Any]:
    async def build() -> oc.Program:
        lm = oc.LanguageModel(model=model)
        inputs = oc.Input(data_model=Query, name="query")
        (short, long) = await oc.Branch(
            question="Does this need a long answer?",
            labels=["short", "long"],
            branches=[
                oc.Generator(data_model=Answer, language_model=lm, name="brief"),
                oc.Generator(data_model=Answer, language_model=lm, name="thorough"),
            ],
            language_model=lm,
            return_decision=False,
            name="router",
        )(inputs)
        return oc.Program(inputs=inputs, outputs=short | long, name="routed")

    return asyncio.run(build()).to_json()


def test_a_branch_document_validates_with_its_slots_wired_by_index() -> None:
    document = branch_document()
    assert validate_document(document) == []
    merge = document["program"]["modules"][-1]
    assert merge["inbound"] == [
        {"module": "router", "output": 0},
        {"module": "router", "output": 1},
    ]

    broken = copy.deepcopy(document)
    broken["program"]["modules"][-1]["inbound"] = [{"module": "router", "output": "first"}]
    [error] = validate_document(broken)
    assert error.path == "program.modules[2].inbound"


def test_a_held_module_may_not_name_a_server_side_cache_dir() -> None:
    document = branch_document()
    held = document["program"]["modules"][1]["module"]["config"]["branches"][1]
    held["config"]["language_model"]["config"]["cache_dir"] = "/etc"
    [error] = validate_document(document)
    assert error.path == (
        "program.modules[1].module.config.branches[1].config.language_model.config.cache_dir"
    )


def test_a_stored_document_keeps_the_held_modules_own_model() -> None:
    source = branch_document()
    trained = branch_document(model="openai/the-run-provider")
    stored = storable_document(trained, source)
    branches = stored["program"]["modules"][1]["module"]["config"]["branches"]
    assert {b["config"]["language_model"]["config"]["model"] for b in branches} == {"openai/x"}


def respond(request: dict[str, Any]) -> dict[str, Any]:
    schema = request["response_format"]["json_schema"]["schema"]
    shown = json.loads(request["messages"][-1]["content"])
    if "choice" in schema["properties"]:
        return {"thinking": "t", "choice": "long" if "why" in shown["query"].lower() else "short"}
    return {"answer": f"answer to {shown['query']}"}


@pytest.mark.litellm
def test_trying_a_branch_shows_the_route(api, user, allow_outgoing) -> None:
    with ScriptedServer(respond) as server:
        allow_outgoing(server)
        Provider.objects.create(
            owner=user, name="scripted", model="openai/scripted", api_base=server.base_url,
            is_default=True, params={"max_retries": 1, "backoff_base": 0.01},
        )  # fmt: skip
        created = api.post(
            "/api/programs/", {"name": "routed", "document": branch_document()}, format="json"
        )
        assert created.status_code == 201, created.content
        response = api.post(
            f"/api/programs/{created.json()['id']}/try/",
            {"input": {"query": "Why is the sky blue?"}},
            format="json",
        )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["output"] == {"answer": "answer to Why is the sky blue?"}
    steps = {step["module"]: step for step in body["trace"]}
    assert steps["router"]["taken"] == ["long"]
    assert steps["router"]["outputs"] == [None, body["output"]]
    assert steps["router_decision"]["parent"] == "router"
    assert steps["brief"]["skipped"] is True and steps["brief"]["parent"] == "router"
    assert steps["thorough"]["skipped"] is False and steps["thorough"]["outputs"] == body["output"]
