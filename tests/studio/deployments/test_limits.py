"""What a prediction may carry: the body limit, capped error listings, each input's size.

An input over the deployment's ``max_input_bytes`` (default 256 kB) is refused with
413 before any model is called, in a request and in a batch row alike.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.base import ContentFile

from studio.datasets.models import Dataset
from studio.deployments.batch import execute_batch
from studio.deployments.models import MAX_INPUT_BYTES_DEFAULT
from tests.studio.deployments.factories import make_provider, make_run

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

FRANCE = {"query": "What is the capital of France?"}
PREDICT = "/api/deployments/cap/predict/"


@pytest.fixture
def deployment(api, user, scripted_server) -> dict[str, Any]:
    run = make_run(user, make_provider(user, scripted_server.base_url))
    response = api.post("/api/deployments/", {"name": "cap", "run": run.pk}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def errors(response: Any) -> list[tuple[str, str]]:
    return [(e["path"], e["message"]) for e in response.json()["errors"]]


def test_a_body_over_the_request_limit_is_a_413_naming_the_limit(api, deployment, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
    body = json.dumps({"input": {"query": "x" * (11 * 1024 * 1024)}})
    response = api.post(PREDICT, body, content_type="application/json")
    assert response.status_code == 413
    ((path, message),) = errors(response)
    assert path == "" and "larger than the limit of 10 MB (10,485,760 bytes)" in message


def test_fifty_thousand_unknown_keys_answer_a_short_listing(api, deployment, scripted_server):
    extra = {"query": "q", **{f"k{i}": 1 for i in range(50_000)}}  # 589 kB
    response = api.post(PREDICT, {"input": extra}, format="json")
    assert response.status_code == 413  # over the default limit first
    api.patch("/api/deployments/cap/", {"max_input_bytes": 1024 * 1024}, format="json")
    response = api.post(PREDICT, {"input": extra}, format="json")
    assert response.status_code == 400
    listed = errors(response)
    assert listed[:2] == [
        ("input.k0", "Extra inputs are not permitted"),
        ("input.k1", "Extra inputs are not permitted"),
    ]
    assert len(listed) == 21 and listed[-1] == ("input", "and 49,980 more problems, not listed")
    assert len(response.content) < 4_000
    assert scripted_server.stats.chat_requests == 0


def test_an_input_over_the_deployments_limit_is_never_sent_to_the_model(
    api, deployment, scripted_server
):
    assert deployment["max_input_bytes"] == MAX_INPUT_BYTES_DEFAULT == 256 * 1024
    large = {"query": "x" * (300 * 1024)}
    response = api.post(PREDICT, {"input": large}, format="json")
    assert response.status_code == 413
    ((path, message),) = errors(response)
    assert path == "input"
    assert "this input is 300 kB (307,212 bytes)" in message
    assert "256 kB (262,144 bytes) per input" in message and "max_input_bytes" in message

    many = api.post(PREDICT, {"inputs": [FRANCE, large, FRANCE, large]}, format="json")
    assert many.status_code == 413
    assert [path for path, _ in errors(many)] == ["inputs[1]", "inputs[3]"]
    assert scripted_server.stats.chat_requests == 0

    # Its owner raises the limit: the same input is predicted.
    changed = api.patch("/api/deployments/cap/", {"max_input_bytes": 512 * 1024}, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["max_input_bytes"] == 512 * 1024
    assert changed.json()["target"]["id"] == deployment["target"]["id"]  # serves the same
    assert api.post(PREDICT, {"input": large}, format="json").status_code == 200
    assert scripted_server.stats.chat_requests == 1


@pytest.mark.parametrize("value", [0, 1023, 4 * 1024 * 1024 + 1, "many", None])
def test_the_limit_is_checked_where_it_is_set(api, deployment, user, value):
    response = api.patch("/api/deployments/cap/", {"max_input_bytes": value}, format="json")
    assert response.status_code == 400
    assert [path for path, _ in errors(response)] == ["max_input_bytes"]
    assert api.get("/api/deployments/cap/").json()["max_input_bytes"] == MAX_INPUT_BYTES_DEFAULT
    run = make_run(user, make_provider(user, "http://provider.invalid/v1"))
    created = api.post(
        "/api/deployments/",
        {"name": "other", "run": run.pk, "max_input_bytes": value},
        format="json",
    )
    assert created.status_code == 400
    assert [path for path, _ in errors(created)] == ["max_input_bytes"]


def test_a_deployment_can_be_created_with_its_limit(api, user):
    run = make_run(user, make_provider(user, "http://provider.invalid/v1"))
    body = {"name": "small", "run": run.pk, "max_input_bytes": 2048}
    created = api.post("/api/deployments/", body, format="json")
    assert created.status_code == 201 and created.json()["max_input_bytes"] == 2048
    response = api.post(
        "/api/deployments/small/predict/", {"input": {"query": "é" * 1100}}, format="json"
    )  # 2,214 bytes in UTF-8, though 1,113 characters
    assert response.status_code == 413
    assert "2 kB (2,048 bytes) per input" in errors(response)[0][1]


def test_a_batch_row_over_the_limit_fails_with_that_reason(
    api, user, deployment, scripted_server, django_capture_on_commit_callbacks
):
    rows = [
        {"query": "What is the capital of France?", "answer": "Paris"},
        {"query": "y" * (300 * 1024), "answer": "?"},
        {"query": "What is the capital of Italy?", "answer": "Rome"},
    ]
    dataset = Dataset(
        owner=user,
        name="mixed",
        format=Dataset.Format.JSONL,
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
        output_schema={"type": "object", "properties": {"answer": {"type": "string"}}},
        status=Dataset.Status.VALID,
        row_count=len(rows),
        test_fraction=0.0,
        split_seed=0,
    )
    dataset.file.save(
        "mixed.jsonl", ContentFile("\n".join(json.dumps(r) for r in rows).encode()), save=False
    )
    dataset.save()
    with django_capture_on_commit_callbacks(execute=True):
        job = api.post(
            "/api/deployments/cap/batches/", {"dataset": dataset.pk}, format="json"
        ).json()
    execute_batch(job["id"])
    done = api.get(f"/api/deployments/cap/batches/{job['id']}/").json()
    assert done["state"] == "succeeded" and (done["processed"], done["failures"]) == (3, 1)
    lines = [
        json.loads(line)
        for line in b"".join(api.get(done["jsonl_url"]).streaming_content).splitlines()
    ]
    assert [line["output"] is None for line in lines] == [False, True, False]
    assert "larger than this deployment takes: 256 kB (262,144 bytes)" in lines[1]["error"]
    assert scripted_server.stats.chat_requests == 2  # the large row never reached it
