"""Try a program on one input: each module's input and output, through a real provider."""

from __future__ import annotations

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from studio.providers.models import Provider
from tests.studio.runs.factories import make_version, program_document

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]


@pytest.fixture
def server(allow_outgoing):
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request) as running:
        allow_outgoing(running)
        yield running


@pytest.fixture
def provider(user, server):
    return Provider.objects.create(
        owner=user, name="scripted", model="openai/scripted", api_base=server.base_url,
        is_default=True, params={"max_retries": 1, "backoff_base": 0.01},
    )  # fmt: skip


def test_trying_the_latest_version_shows_every_module(api, user, provider) -> None:
    version = make_version(user)
    response = api.post(
        f"/api/programs/{version.program_id}/try/",
        {"input": {"query": "What is the capital of France?"}},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    [step] = body["trace"]
    assert step["inputs"] == {"query": "What is the capital of France?"}
    assert step["outputs"] == body["output"] and step["error"] is None
    assert set(body["output"]) == {"answer"}
    assert body["usage"]["calls"] == 1


def test_an_unsaved_document_can_be_tried(api, user, provider) -> None:
    version = make_version(user)
    document = program_document()
    document["variables"][next(iter(document["variables"]))]["instructions"] = "Be terse."
    response = api.post(
        f"/api/programs/{version.program_id}/try/",
        {"input": {"query": "What is the capital of Peru?"}, "document": document},
        format="json",
    )
    assert response.status_code == 200, response.content


def test_a_wrong_input_or_another_users_program_is_refused(api, other_api, user, provider) -> None:
    version = make_version(user)
    url = f"/api/programs/{version.program_id}/try/"
    response = api.post(url, {"input": {"question": "?"}}, format="json")
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["path"] == "input" and "Query" in error["message"]
    assert other_api.post(url, {"input": {"query": "?"}}, format="json").status_code == 404


def test_a_failing_model_shows_its_error_in_the_trace(api, user, provider, server) -> None:
    server.fail_next(status=401, times=5, body='{"error": {"message": "bad key"}}')
    version = make_version(user)
    response = api.post(
        f"/api/programs/{version.program_id}/try/", {"input": {"query": "?"}}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["output"] is None
    assert "AuthenticationError" in body["trace"][0]["error"]
