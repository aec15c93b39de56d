"""Batch prediction: queued on the training queue, progress events, CSV / JSONL downloads, resume."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from studio import celery_app
from studio.datasets.models import Dataset
from studio.deployments.batch import CHUNK, execute_batch
from studio.deployments.models import BatchEvent, BatchJob
from studio.deployments.tasks import run_batch
from tests.studio.deployments.factories import make_dataset, make_provider, make_run

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

ROWS = 40


@pytest.fixture
def deployment(api, user, scripted_server) -> str:
    run = make_run(user, make_provider(user, scripted_server.base_url))
    response = api.post("/api/deployments/", {"name": "cap", "run": run.pk}, format="json")
    assert response.status_code == 201
    return "cap"


def start(api: Any, dataset: Dataset, capture: Any, split: str = "all") -> dict[str, Any]:
    with capture(execute=True):
        response = api.post(
            "/api/deployments/cap/batches/", {"dataset": dataset.pk, "split": split}, format="json"
        )
    assert response.status_code == 201, response.json()
    return response.json()


def body(response: Any) -> str:
    return b"".join(response.streaming_content).decode()


def test_a_batch_job_predicts_every_row_reports_progress_and_downloads(
    api, user, deployment, enqueued, django_capture_on_commit_callbacks
):
    job = start(api, make_dataset(user, rows=ROWS), django_capture_on_commit_callbacks)
    assert job["state"] == "queued" and job["dataset_name"] == "capitals"
    assert enqueued == [("deployments.run_batch", job["id"])]

    assert execute_batch(job["id"]) == 0
    done = api.get(f"/api/deployments/cap/batches/{job['id']}/").json()
    assert done["state"] == "succeeded", done["error"]
    assert (done["processed"], done["total"], done["failures"]) == (ROWS, ROWS, 0)
    assert done["usage"]["calls"] == ROWS and done["usage"]["total_tokens"] > 0

    events = list(BatchEvent.objects.filter(job_id=job["id"]).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [e.payload["state"] for e in events if e.kind == "state"] == [
        "queued",
        "running",
        "succeeded",
    ]
    progress = [e.payload["processed"] for e in events if e.kind == "progress"]
    assert progress == [0, *range(CHUNK, ROWS, CHUNK), ROWS]
    assert events[-2].kind == "usage" and events[-2].payload["calls"] == ROWS

    response = api.get(done["csv_url"])
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert 'filename="cap-batch-' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(body(response))))
    assert rows[0] == ["index", "input.query", "expected.answer", "output.answer", "error"]
    assert len(rows) == ROWS + 1
    assert all(row[3] == row[2] for row in rows[1:])  # trained: the bare city, every time
    assert rows[1][1].startswith("What is the capital of")

    response = api.get(done["jsonl_url"])
    assert response["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in body(response).splitlines()]
    assert [line["index"] for line in lines] == list(range(ROWS))
    assert lines[0]["output"] == lines[0]["expected"] and lines[0]["error"] is None

    usage = api.get("/api/deployments/cap/usage/").json()
    assert usage["batch"]["predictions"] == ROWS and usage["api"]["predictions"] == 0
    listed = api.get("/api/deployments/cap/batches/").json()
    assert [j["id"] for j in listed["results"]] == [job["id"]]


def test_a_split_is_predicted_alone(api, user, deployment, django_capture_on_commit_callbacks):
    job = start(
        api,
        make_dataset(user, rows=ROWS, test_fraction=0.25),
        django_capture_on_commit_callbacks,
        "test",
    )
    execute_batch(job["id"])
    assert BatchJob.objects.get(pk=job["id"]).total == 10


def test_only_a_valid_dataset_of_ones_own_can_be_predicted(api, user, other_user, deployment):
    invalid = make_dataset(user)
    Dataset.objects.filter(pk=invalid.pk).update(status=Dataset.Status.INVALID)
    for dataset, message in ((invalid, "only a valid dataset"), (make_dataset(other_user), "")):
        response = api.post("/api/deployments/cap/batches/", {"dataset": dataset.pk}, format="json")
        assert response.status_code == 400
        assert response.json()["errors"][0]["path"] == "dataset"
        assert message in response.json()["errors"][0]["message"]
    response = api.post(
        "/api/deployments/cap/batches/",
        {"dataset": make_dataset(user).pk, "split": "x"},
        format="json",
    )
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "split"
    assert BatchJob.objects.count() == 0


def test_a_job_whose_worker_died_resumes_after_its_last_complete_line(
    api, user, deployment, django_capture_on_commit_callbacks
):
    job = start(api, make_dataset(user, rows=ROWS), django_capture_on_commit_callbacks)
    row = BatchJob.objects.get(pk=job["id"])
    path = Path(row.results.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = [
        {"index": i, "input": {}, "expected": {}, "output": None, "error": "x"} for i in range(3)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in kept) + '{"index": 3, "inp')
    fresh = timezone.now()
    BatchJob.objects.filter(pk=row.pk).update(state="running", heartbeat_at=fresh)

    # Its worker may still be alive: the task looks again once the heartbeat is stale.
    assert execute_batch(row.pk) > 0

    BatchJob.objects.filter(pk=row.pk).update(heartbeat_at=fresh - timedelta(hours=1))
    assert execute_batch(row.pk) == 0
    row.refresh_from_db()
    assert (row.state, row.processed, row.failures, row.attempts) == ("succeeded", ROWS, 3, 1)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["index"] for line in lines] == list(range(ROWS))
    assert lines[:3] == kept


def test_a_batch_job_whose_provider_fails_still_writes_every_row(
    api, user, django_capture_on_commit_callbacks
):
    run = make_run(user, make_provider(user, "http://provider.invalid/v1"))
    api.post("/api/deployments/", {"name": "cap", "run": run.pk}, format="json")
    job = start(api, make_dataset(user, rows=5), django_capture_on_commit_callbacks)
    execute_batch(job["id"])
    done = BatchJob.objects.get(pk=job["id"])
    assert (done.state, done.processed, done.failures) == ("succeeded", 5, 5)
    rows = list(csv.reader(io.StringIO(body(api.get(job["csv_url"])))))
    assert all(row[3] == "" and row[4] for row in rows[1:])


def test_the_batch_task_goes_to_the_training_queue() -> None:
    assert celery_app.amqp.router.route({}, run_batch.name)["queue"].name == "training"
