"""The library's code rewards through the API: versions checked in the sandbox, the try pane,
hostile code as a per-row error, export / import, and another user's 404."""

from __future__ import annotations

from typing import Any

import pytest

from studio.scorers.models import Scorer
from tests.studio.runs.factories import make_dataset
from tests.studio.scorers.conftest import WITHIN

pytestmark = pytest.mark.django_db


def create(api: Any, **fields: Any) -> Any:
    return api.post(
        "/api/scorers/", {"name": "same answer", "source": WITHIN, **fields}, format="json"
    )


def test_a_reward_is_created_versioned_and_listed(api, user):
    made = create(api, description="the answer must match", message="first")
    assert made.status_code == 201, made.json()
    body = made.json()
    assert (body["name"], body["kind"], body["latest_version"], body["version_count"]) == (
        "same answer",
        "reward",
        1,
        1,
    )
    changed = WITHIN.replace("return 1.0", "return 0.9")
    second = api.post(
        f"/api/scorers/{body['id']}/versions/",
        {"source": changed, "message": "a little less"},
        format="json",
    )
    assert second.status_code == 201, second.json()
    assert second.json()["number"] == 2 and second.json()["created_by"] == "ada"
    versions = api.get(f"/api/scorers/{body['id']}/versions/").json()["results"]
    assert [(v["number"], v["message"]) for v in versions] == [(2, "a little less"), (1, "first")]
    assert api.get(f"/api/scorers/{body['id']}/versions/1/").json()["source"] == WITHIN
    [listed] = api.get("/api/scorers/").json()["results"]
    assert listed["latest_version"] == 2


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("def reward(y_true, y_pred)\n    return 1.0\n", "SyntaxError"),
        ("def score(y_true, y_pred):\n    return 1.0\n", "reward"),
        ("x = 1\nraise ValueError('at load')\n", "line 2"),
    ],
)
def test_code_that_does_not_load_is_refused_at_source_and_nothing_is_stored(api, source, reason):
    refused = create(api, source=source)
    assert refused.status_code == 400
    [error] = refused.json()["errors"]
    assert error["path"] == "source" and reason in error["message"], error
    assert not Scorer.objects.exists()


def test_a_version_that_does_not_load_is_refused_and_the_newest_stays(api):
    scorer = create(api).json()
    refused = api.post(
        f"/api/scorers/{scorer['id']}/versions/", {"source": "def reward(:\n"}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["errors"][0]["path"] == "source"
    assert api.get(f"/api/scorers/{scorer['id']}/").json()["latest_version"] == 1


def test_source_over_the_size_limit_is_refused_naming_it(api):
    refused = create(api, source="# " + "x" * 70_000 + "\ndef reward(a, b):\n    return 1.0\n")
    assert refused.status_code == 413
    [error] = refused.json()["errors"]
    assert error["path"] == "source" and "64 kB" in error["message"]


def test_a_name_is_unique_per_owner(api, other_api):
    assert create(api).status_code == 201
    taken = create(api)
    assert taken.status_code == 400 and taken.json()["errors"][0]["path"] == "name"
    assert create(other_api).status_code == 201  # another user's library is another


def test_a_metric_defines_metric_and_may_score_any_number(api):
    source = "def metric(y_true, y_pred):\n    return float(len(y_pred['answer']))\n"
    assert create(api, name="length", kind="metric", source=source).status_code == 201
    as_reward = create(api, name="length 2", kind="reward", source=source)
    assert as_reward.status_code == 400  # a reward's code defines `reward`


def test_try_scores_dataset_rows_with_score_feedback_and_prints(api, user):
    dataset = make_dataset(user, rows=6)
    scorer = create(api).json()
    tried = api.post(
        f"/api/scorers/{scorer['id']}/try/",
        {
            "dataset": dataset.pk,
            "rows": [0, 1, 2],
            "prediction": [{"answer": "Paris"}, {"answer": "nowhere"}, {"wrong": 1}],
        },
        format="json",
    )
    assert tried.status_code == 200, tried.json()
    body = tried.json()
    first, second, third = body["rows"]
    assert first["y_true"] == {"answer": "Paris"} and first["score"] == 1.0
    assert first["error"] is None and first["feedback"] is None
    expected = second["y_true"]["answer"]
    assert second["score"] == 0.0 and second["feedback"] == f"expected {expected}, got nowhere"
    assert "compared nowhere" in second["output"]
    assert third["score"] == 0.0 and "KeyError: 'answer'" in third["error"]
    assert body["failed"] == 1 and body["version"] == 1 and body["elapsed_s"] > 0


def test_try_takes_y_pred_from_a_row_field_or_the_targets(api, user):
    dataset = make_dataset(user, rows=6)
    scorer = create(api).json()
    url = f"/api/scorers/{scorer['id']}/try/"
    perfect = api.post(url, {"dataset": dataset.pk, "limit": 4}, format="json").json()
    assert [r["score"] for r in perfect["rows"]] == [1.0] * 4  # y_pred: a copy of the targets
    mapped = api.post(
        url,
        {"dataset": dataset.pk, "limit": 2, "prediction_fields": {"answer": "input.query"}},
        format="json",
    ).json()
    assert all(r["score"] == 0.0 and r["y_pred"]["answer"] for r in mapped["rows"])
    unknown = api.post(
        url, {"dataset": dataset.pk, "prediction_fields": {"answer": "nope"}}, format="json"
    )
    assert unknown.status_code == 400
    assert unknown.json()["errors"][0]["path"] == "prediction_fields"
    too_many = api.post(url, {"dataset": dataset.pk, "limit": 51}, format="json")
    assert too_many.status_code == 400
    past_the_end = api.post(url, {"dataset": dataset.pk, "rows": [2, 9]}, format="json")
    assert past_the_end.status_code == 400
    [error] = past_the_end.json()["errors"]
    assert error == {"path": "rows", "message": "no row 9: this version has 6 row(s), from 0"}


def test_try_runs_unsaved_source_without_storing_it(api, user):
    dataset = make_dataset(user, rows=3)
    scorer = create(api).json()
    draft = "def reward(y_true, y_pred):\n    return 0.25, 'draft'\n"
    tried = api.post(
        f"/api/scorers/{scorer['id']}/try/",
        {"dataset": dataset.pk, "limit": 2, "source": draft},
        format="json",
    ).json()
    assert tried["version"] is None
    assert [(r["score"], r["feedback"]) for r in tried["rows"]] == [(0.25, "draft")] * 2
    assert api.get(f"/api/scorers/{scorer['id']}/").json()["version_count"] == 1


def test_hostile_code_in_a_try_ends_as_a_per_row_error(api, user):
    dataset = make_dataset(user, rows=4)
    scorer = create(api).json()
    hostile = """
import time
def reward(y_true, y_pred):
    kind = y_pred["answer"]
    if kind == "file":
        return float(len(open('/etc/passwd').read()) > 0)
    if kind == "loop":
        while True:
            pass
    if kind == "env":
        import os
        return 1.0, str(dict(os.environ))
    return 0.5
"""
    tried = api.post(
        f"/api/scorers/{scorer['id']}/try/",
        {
            "dataset": dataset.pk,
            "rows": [0, 1, 2, 3],
            "source": hostile,
            "prediction": [{"answer": k} for k in ("file", "loop", "env", "fine")],
        },
        format="json",
    )
    assert tried.status_code == 200, tried.json()
    file_row, loop_row, env_row, fine_row = tried.json()["rows"]
    assert "FileNotFoundError" in file_row["error"] and file_row["score"] == 0.0
    assert "timed out" in loop_row["error"]
    assert env_row["feedback"] == "{}"  # the sandbox has no environment at all
    assert fine_row["score"] == 0.5 and fine_row["error"] is None


def test_another_users_scorer_is_not_found(api, other_api, user, other_user):
    scorer = create(api).json()
    base = f"/api/scorers/{scorer['id']}/"
    dataset = make_dataset(user, rows=2)
    assert other_api.get(base).status_code == 404
    assert other_api.get(f"{base}versions/1/").status_code == 404
    assert other_api.post(f"{base}try/", {"dataset": dataset.pk}, format="json").status_code == 404
    assert other_api.delete(base).status_code == 404
    assert other_api.get("/api/scorers/").json()["results"] == []
    # nor can the owner try it on someone else's dataset
    theirs = make_dataset(other_user, rows=2)
    refused = api.post(f"{base}try/", {"dataset": theirs.pk}, format="json")
    assert refused.status_code == 400 and refused.json()["errors"][0]["path"] == "dataset"


def test_export_and_import_carry_every_version(api):
    scorer = create(api, description="matching").json()
    api.post(
        f"/api/scorers/{scorer['id']}/versions/",
        {"source": WITHIN.replace("1.0", "0.75"), "message": "v2"},
        format="json",
    )
    exported = api.get(f"/api/scorers/{scorer['id']}/export/")
    assert exported.status_code == 200
    assert "same-answer.reward.json" in exported["Content-Disposition"]
    payload = exported.json()
    assert [v["message"] for v in payload["versions"]] == ["", "v2"]
    imported = api.post("/api/scorers/import/", payload, format="json")
    assert imported.status_code == 201, imported.json()
    body = imported.json()
    assert body["name"] == "same answer (2)" and body["version_count"] == 2
    assert body["description"] == "matching"
    source = api.get(f"/api/scorers/{body['id']}/versions/2/").json()["source"]
    assert "0.75" in source
    broken = {**payload, "versions": [{"source": "def reward(:"}]}
    refused = api.post("/api/scorers/import/", broken, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["path"] == "versions[0].source"
