"""A run's epochs as a CSV download: the engine's CSVLogger format, owner only."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from studio.runs import services
from studio.runs.events import RUN_EVENTS
from studio.runs.models import Run, RunEvent
from studio.runs.training import execute_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db


def start(user: Any, base_url: str = "http://provider.invalid/v1", **fit: Any) -> Run:
    return services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, base_url),
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 2, "batch_size": 8, "seed": 0, **fit},
    )


def download(api: Any, run: Run, **headers: Any) -> Any:
    return api.get(f"/api/runs/{run.pk}/history/csv/", **headers)


def table(response: Any) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode())))


@pytest.mark.litellm
def test_the_csv_has_a_row_per_epoch_with_the_figures_the_epochs_logged(api, user, scripted_server):
    run = start(user, scripted_server.base_url, validation_split=0.25)
    execute_run(run.pk)

    response = download(api, run)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == f'attachment; filename="run-{run.pk}-history.csv"'
    header, *rows = table(response)
    logged = [e.payload for e in RunEvent.objects.filter(run=run, kind="epoch").order_by("seq")]
    keys = sorted({key for payload in logged for key in payload["logs"]})
    assert {"reward", "val_reward", "f1_score", "val_f1_score"} <= set(keys)
    assert header == ["epoch", *keys]
    assert [row[0] for row in rows] == ["0", "1"]
    for row, payload in zip(rows, logged, strict=True):
        assert [float(cell) for cell in row[1:]] == [payload["logs"][key] for key in keys]
    # A client that accepts only CSV gets it too.
    assert download(api, run, HTTP_ACCEPT="text/csv").status_code == 200


def test_an_epoch_reported_twice_counts_once_and_a_missing_figure_is_na(api, user):
    run = start(user)
    RUN_EVENTS.emit_sync(run.pk, "epoch", {"epoch": 0, "logs": {"reward": 0.25}})
    RUN_EVENTS.emit_sync(run.pk, "epoch", {"epoch": 0, "logs": {"reward": 0.5}})  # a resume
    RUN_EVENTS.emit_sync(run.pk, "epoch", {"epoch": 1, "logs": {"reward": 0.75, "failures": 2}})

    assert table(download(api, run)) == [
        ["epoch", "failures", "reward"],
        ["0", "NA", "0.5"],
        ["1", "2", "0.75"],
    ]


@pytest.mark.parametrize(
    ("split", "header"),
    [
        (0.0, "epoch,f1_score,reward\n"),
        (0.25, "epoch,f1_score,reward,val_f1_score,val_reward\n"),
    ],
)
def test_a_run_with_no_epoch_yet_gives_the_header_of_what_it_will_log(api, user, split, header):
    run = start(user, validation_split=split)
    response = download(api, run)
    assert response.status_code == 200
    assert response.content.decode() == header


def test_another_users_run_is_not_found(api, other_api, user):
    run = start(user)
    assert other_api.get(f"/api/runs/{run.pk}/history/csv/").status_code == 404
    assert api.get("/api/runs/999999/history/csv/").status_code == 404


def test_the_schema_declares_the_download_as_csv(api):
    schema = api.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/runs/{id}/history/csv/"]["get"]
    assert operation["operationId"] == "runs_history_csv"
    assert "text/csv" in operation["responses"]["200"]["content"]
    assert "404" in operation["responses"]
