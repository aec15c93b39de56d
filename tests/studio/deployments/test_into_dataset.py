"""Reviewed predictions into a dataset: which become rows, with what output, in which split."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from studio.datasets import versions
from studio.datasets.models import Dataset
from studio.deployments.models import Deployment, PredictionLog
from tests.studio.deployments.factories import make_dataset, make_provider, make_run

pytestmark = pytest.mark.django_db

URL = "/api/deployments/cap/predictions/to-dataset/"


def deploy(api: Any, user: Any) -> Deployment:
    run = make_run(user, make_provider(user, "http://127.0.0.1:9/v1"))
    response = api.post("/api/deployments/", {"name": "cap", "run": run.pk}, format="json")
    assert response.status_code == 201, response.json()
    return Deployment.objects.get(owner=user, name="cap")


def logged(deployment: Deployment, country: str, answer: Any, **review: Any) -> PredictionLog:
    return PredictionLog.objects.create(
        deployment=deployment,
        target_id=deployment.target_id,
        source="api",
        inputs={"query": f"What is the capital of {country}?"},
        outputs=None if answer is None else {"answer": answer},
        failed=answer is None,
        created_at=timezone.now() - timedelta(minutes=PredictionLog.objects.count()),
        **review,
    )


def errors(response: Any) -> list[str]:
    assert response.status_code == 400, response.json()
    return [e["path"] for e in response.json()["errors"]]


def added_rows(dataset: Dataset) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    version = versions.latest_version(dataset)
    return [
        (row.split, row.input, row.output)
        for row in versions.iter_rows(version)
        if row.row_id > dataset.row_count
    ]


def test_right_predictions_and_corrections_become_rows_and_wrong_ones_are_counted(api, user):
    deployment = deploy(api, user)
    dataset = make_dataset(user)
    right = logged(deployment, "Peru", "Lima", verdict="right")
    corrected = logged(
        deployment, "Chile", "Lima", verdict="wrong", correction={"answer": "Santiago"}
    )
    wrong = logged(deployment, "Kenya", "Lagos", verdict="wrong")

    response = api.post(
        URL,
        {"dataset": dataset.pk, "ids": [right.pk, corrected.pk, wrong.pk], "split": "train"},
        format="json",
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["added"] == 2 and body["skipped"] == {"wrong_without_correction": 1}
    version = body["version"]
    assert (version["number"], version["source"], version["added"]) == (2, "predictions", 2)
    assert version["row_count"] == dataset.row_count + 2 and version["digest"]
    assert sorted(added_rows(dataset), key=str) == sorted(
        [
            ("train", {"query": "What is the capital of Peru?"}, {"answer": "Lima"}),
            ("train", {"query": "What is the capital of Chile?"}, {"answer": "Santiago"}),
        ],
        key=str,
    )


def test_all_reviewed_takes_the_lists_filters_and_leaves_unreviewed_ones(api, user):
    deployment = deploy(api, user)
    dataset = make_dataset(user)
    logged(deployment, "Peru", "Lima", verdict="right")
    logged(deployment, "Japan", "Tokyo", verdict="right")
    logged(deployment, "Chile", "Quito", verdict="wrong", correction={"answer": "Santiago"})
    logged(deployment, "Spain", "Madrid")  # not reviewed
    logged(deployment, "Mali", None, correction={"answer": "Bamako"})  # a failure, corrected

    everything = api.post(URL, {"dataset": dataset.pk, "reviewed": True}, format="json").json()
    assert everything["added"] == 4 and everything["skipped"] == {}

    other = make_dataset(user)
    only_right = api.post(
        URL,
        {"dataset": other.pk, "reviewed": True, "verdict": "right", "split": "test"},
        format="json",
    ).json()
    assert only_right["added"] == 2
    assert only_right["version"]["test_count"] == versions.first_version(other).test_count + 2
    assert {r[2]["answer"] for r in added_rows(other)} == {"Lima", "Tokyo"}

    failed = api.post(
        URL, {"dataset": make_dataset(user).pk, "reviewed": True, "failed": True}, format="json"
    ).json()
    assert failed["added"] == 1


def test_the_same_predictions_are_not_added_twice(api, user):
    deployment = deploy(api, user)
    dataset = make_dataset(user)
    ids = [logged(deployment, c, city, verdict="right").pk for c, city in [("Peru", "Lima")]]
    assert api.post(URL, {"dataset": dataset.pk, "ids": ids}, format="json").status_code == 201

    again = api.post(URL, {"dataset": dataset.pk, "ids": ids}, format="json")
    assert (
        errors(again) == ["ids"] and "1 already in dataset" in again.json()["errors"][0]["message"]
    )
    assert versions.latest_version(dataset).number == 2


def test_another_users_dataset_or_deployment_is_not_found(api, other_api, user, other_user):
    deployment = deploy(api, user)
    row = logged(deployment, "Peru", "Lima", verdict="right")
    theirs = make_dataset(other_user)
    assert errors(api.post(URL, {"dataset": theirs.pk, "ids": [row.pk]}, format="json")) == [
        "dataset"
    ]
    mine = make_dataset(user)
    assert (
        other_api.post(URL, {"dataset": mine.pk, "ids": [row.pk]}, format="json").status_code == 404
    )
    assert versions.latest_version(theirs).number == versions.latest_version(mine).number == 1


def test_a_dataset_of_another_shape_is_refused_naming_the_field(api, user):
    deployment = deploy(api, user)
    row = logged(deployment, "Peru", "Lima", verdict="right")
    dataset = make_dataset(user)
    Dataset.objects.filter(pk=dataset.pk).update(
        output_schema={"type": "object", "properties": {"city": {"type": "string"}}}
    )
    response = api.post(URL, {"dataset": dataset.pk, "ids": [row.pk]}, format="json")
    assert errors(response) == ["dataset"]
    message = response.json()["errors"][0]["message"]
    assert "`answer`" in message and "(and 1 more)" in message


def test_bad_requests_name_their_field(api, user):
    deployment = deploy(api, user)
    dataset = make_dataset(user)
    row = logged(deployment, "Peru", "Lima", verdict="right")
    stranger = logged(deploy_other(api, user), "Peru", "Lima", verdict="right")
    unreviewed = logged(deployment, "Spain", "Madrid")
    for body, field in [
        ({"dataset": dataset.pk}, ""),
        ({"dataset": dataset.pk, "ids": [row.pk], "reviewed": True}, ""),
        ({"dataset": dataset.pk, "ids": [row.pk, stranger.pk]}, "ids[1]"),
        ({"dataset": dataset.pk, "ids": [unreviewed.pk]}, "ids"),
        ({"dataset": dataset.pk, "ids": [row.pk], "split": "half"}, "split"),
        ({"dataset": dataset.pk, "reviewed": True, "since": "yesterday"}, "since"),
        ({"dataset": dataset.pk, "reviewed": True, "verdict": "wrong"}, "reviewed"),
        ({"ids": [row.pk]}, "dataset"),
    ]:
        assert errors(api.post(URL, body, format="json")) == [field], body
    assert versions.latest_version(dataset).number == 1


def deploy_other(api: Any, user: Any) -> Deployment:
    run = make_run(user, make_provider(user, "http://127.0.0.1:9/v1"))
    api.post("/api/deployments/", {"name": "other", "run": run.pk}, format="json")
    return Deployment.objects.get(owner=user, name="other")


def test_a_row_the_datasets_schema_refuses_is_named_by_its_prediction(api, user):
    deployment = deploy(api, user)
    fine = logged(deployment, "Peru", "Lima", verdict="right")
    long = logged(deployment, "Chile", "Lima", verdict="wrong", correction={"answer": "Santiago"})
    dataset = make_dataset(user)
    Dataset.objects.filter(pk=dataset.pk).update(
        output_schema={
            "type": "object",
            "properties": {"answer": {"type": "string", "maxLength": 5}},
        }
    )
    response = api.post(URL, {"dataset": dataset.pk, "ids": [fine.pk, long.pk]}, format="json")
    assert errors(response) == ["ids[1]"]
    assert response.json()["errors"][0]["message"].startswith(
        f"prediction {long.pk}: output.answer"
    )
    assert versions.latest_version(dataset).number == 1
