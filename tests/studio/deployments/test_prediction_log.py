"""The prediction log: what is kept, when, for whom; its filters, paging, review, retention."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from studio.deployments import prediction_log
from studio.deployments.batch import execute_batch
from studio.deployments.models import Deployment, PredictionLog
from studio.deployments.tasks import sweep_prediction_logs
from tests.studio.deployments.factories import make_dataset, make_provider, make_run

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

FRANCE = {"query": "What is the capital of France?"}


def deploy(api: Any, user: Any, base_url: str, name: str = "cap", **settings: Any) -> Deployment:
    run = make_run(user, make_provider(user, base_url))
    assert api.post("/api/deployments/", {"name": name, "run": run.pk}, format="json").status_code
    if settings:
        response = api.patch(f"/api/deployments/{name}/", settings, format="json")
        assert response.status_code == 200, response.json()
    return Deployment.objects.get(owner=user, name=name)


def listed(api: Any, query: str = "", name: str = "cap") -> dict[str, Any]:
    response = api.get(f"/api/deployments/{name}/predictions/{query}")
    assert response.status_code == 200, response.json()
    return response.json()


def test_a_logged_prediction_keeps_input_output_target_latency_and_tokens(
    api, user, scripted_server
):
    deployment = deploy(api, user, scripted_server.base_url, log_predictions=True)
    detail = api.get("/api/deployments/cap/").json()
    assert (detail["log_predictions"], detail["log_sample_rate"]) == (True, 1.0)
    assert detail["log_retention_days"] == 30

    answer = api.post("/api/deployments/cap/predict/", {"input": FRANCE}, format="json").json()

    (row,) = listed(api)["results"]
    assert row["inputs"] == FRANCE and row["outputs"] == answer["output"] == {"answer": "Paris"}
    assert row["target"] == deployment.target_id == answer["target"]
    assert row["source"] == "api" and row["failed"] is False and row["error"] == ""
    assert 0 < row["latency_s"] <= answer["latency_s"]
    assert row["prompt_tokens"] == answer["usage"]["prompt_tokens"] > 0
    assert row["completion_tokens"] == answer["usage"]["completion_tokens"] > 0
    assert row["verdict"] is None and row["reviewed_at"] is None


def test_each_input_of_a_request_is_its_own_row_with_its_own_tokens(api, user, scripted_server):
    deploy(api, user, scripted_server.base_url, log_predictions=True)
    inputs = [{"query": f"What is the capital of {c}?"} for c in ("France", "Peru", "Japan")]
    answer = api.post("/api/deployments/cap/predict/", {"inputs": inputs}, format="json").json()

    rows = listed(api)["results"]
    assert sorted(r["inputs"]["query"] for r in rows) == sorted(i["query"] for i in inputs)
    assert sum(r["prompt_tokens"] for r in rows) == answer["usage"]["prompt_tokens"]
    assert all(r["prompt_tokens"] > 0 for r in rows)


def test_nothing_is_kept_when_logging_is_off_or_sampled_at_zero(api, user, scripted_server):
    deploy(api, user, scripted_server.base_url)  # off by default
    api.post("/api/deployments/cap/predict/", {"input": FRANCE}, format="json")
    assert PredictionLog.objects.count() == 0

    api.patch(
        "/api/deployments/cap/", {"log_predictions": True, "log_sample_rate": 0}, format="json"
    )
    for _ in range(5):
        assert (
            api.post("/api/deployments/cap/predict/", {"input": FRANCE}, format="json").status_code
            == 200
        )
    assert PredictionLog.objects.count() == 0


def test_log_settings_out_of_range_are_refused_naming_the_field(api, user, scripted_server):
    deploy(api, user, scripted_server.base_url)
    for body, field in [
        ({"log_sample_rate": 1.5}, "log_sample_rate"),
        ({"log_retention_days": 0}, "log_retention_days"),
        ({"log_retention_days": 366}, "log_retention_days"),
        ({"log_predictions": "maybe"}, "log_predictions"),
    ]:
        response = api.patch("/api/deployments/cap/", body, format="json")
        assert response.status_code == 400
        assert [e["path"] for e in response.json()["errors"]] == [field]
    fresh = Deployment.objects.get(name="cap")
    assert (fresh.log_predictions, fresh.log_sample_rate, fresh.log_retention_days) == (
        False,
        1.0,
        30,
    )


def test_a_failed_prediction_keeps_its_reason_but_never_the_providers_body(
    api, user, scripted_server
):
    deploy(api, user, scripted_server.base_url, log_predictions=True)
    page = "<html><body>Traceback (most recent call last): /srv/gateway/app.py</body></html>"
    scripted_server.fail_next(status=500, times=50, body=page, content_type="text/html")
    response = api.post("/api/deployments/cap/predict/", {"input": FRANCE}, format="json")
    assert response.status_code == 502

    (row,) = listed(api, "?failed=true")["results"]
    assert row["failed"] is True and row["outputs"] is None
    assert row["error"] == response.json()["detail"] and "HTTP 500" in row["error"]
    assert "/srv/gateway" not in row["error"] and "<html>" not in row["error"]


def test_a_batch_jobs_rows_are_logged_with_their_job(
    api, user, scripted_server, django_capture_on_commit_callbacks
):
    deploy(api, user, scripted_server.base_url, log_predictions=True)
    with django_capture_on_commit_callbacks(execute=True):
        job = api.post(
            "/api/deployments/cap/batches/", {"dataset": make_dataset(user, rows=20).pk}
        ).json()
    assert execute_batch(job["id"]) == 0

    rows = PredictionLog.objects.filter(source="batch")
    assert rows.count() == 20 and {r.batch_id for r in rows} == {job["id"]}
    assert all(r.outputs and r.prompt_tokens > 0 for r in rows)


def test_another_users_log_is_not_found(api, other_api, user, scripted_server):
    deploy(api, user, scripted_server.base_url, log_predictions=True)
    api.post("/api/deployments/cap/predict/", {"input": FRANCE}, format="json")
    row = PredictionLog.objects.get()
    assert other_api.get("/api/deployments/cap/predictions/").status_code == 404
    assert (
        other_api.patch(
            f"/api/deployments/cap/predictions/{row.pk}/", {"verdict": "wrong"}, format="json"
        ).status_code
        == 404
    )
    assert PredictionLog.objects.get().verdict is None


def seed(deployment: Deployment, count: int, *, start: Any, **fields: Any) -> list[PredictionLog]:
    rows = [
        PredictionLog(
            deployment=deployment,
            target_id=fields.get("target_id", deployment.target_id),
            source="api",
            inputs={"query": f"q{i}"},
            outputs=None if fields.get("failed") else {"answer": fields.get("answer", "Paris")},
            failed=bool(fields.get("failed")),
            error="boom" if fields.get("failed") else "",
            verdict=fields.get("verdict"),
            created_at=start + timedelta(minutes=i),
        )
        for i in range(count)
    ]
    return PredictionLog.objects.bulk_create(rows)


def test_each_filter_returns_exactly_its_rows(api, user, scripted_server):
    deployment = deploy(api, user, scripted_server.base_url)
    first_target = deployment.target_id
    api.post(
        "/api/deployments/cap/switch/",
        {"run": make_run(user, deployment.target.run.provider).pk},
        format="json",
    )
    deployment.refresh_from_db()
    day = timezone.now().replace(microsecond=0) - timedelta(days=2)
    seed(deployment, 3, start=day, target_id=first_target)
    seed(deployment, 2, start=day + timedelta(hours=1), failed=True)
    seed(deployment, 4, start=day + timedelta(hours=2), verdict="wrong", answer="Lyon")
    seed(deployment, 1, start=day + timedelta(hours=3), verdict="right", answer=3)

    def count(query: str) -> int:
        return len(listed(api, query)["results"])

    assert count("") == 10
    assert count(f"?target={first_target}") == 3
    assert count(f"?target={deployment.target_id}") == 7
    assert count("?failed=true") == 2 and count("?failed=false") == 8
    assert count("?verdict=wrong") == 4 and count("?verdict=right") == 1
    assert count("?verdict=none") == 5
    assert count("?output_field=answer&output_value=Lyon") == 4
    assert count("?output_field=answer&output_value=3") == 1
    assert count("?output_field=answer&output_value=Paris") == 3
    since = (day + timedelta(hours=1)).isoformat()
    until = (day + timedelta(hours=2, minutes=2)).isoformat()
    assert count(f"?since={since}&until={until}".replace("+", "%2B")) == 2 + 2
    assert count(f"?since={since}&failed=true".replace("+", "%2B")) == 2

    for query, field in [
        ("?failed=perhaps", "failed"),
        ("?verdict=maybe", "verdict"),
        ("?since=yesterday", "since"),
        ("?output_field=answer%27)--&output_value=a", "output_field"),
        ("?output_field=answer", "output_value"),
        ("?cursor=@@@", "cursor"),
        ("?limit=0", "limit"),
    ]:
        response = api.get(f"/api/deployments/cap/predictions/{query}")
        assert response.status_code == 400, query
        assert [e["path"] for e in response.json()["errors"]] == [field], query


def test_cursor_paging_walks_every_row_once_newest_first(api, user, scripted_server):
    deployment = deploy(api, user, scripted_server.base_url)
    moment = timezone.now() - timedelta(hours=1)
    # Ties: many rows share an instant, as the rows of one request do.
    rows = seed(deployment, 7, start=moment) + seed(deployment, 7, start=moment)
    seen: list[int] = []
    query = "?limit=3"
    while True:
        page = listed(api, query)
        seen.extend(r["id"] for r in page["results"])
        if page["next"] is None:
            break
        query = f"?limit=3&cursor={page['next']}"
    expected = sorted(rows, key=lambda r: (r.created_at, r.pk), reverse=True)
    assert seen == [r.pk for r in expected]


def test_a_review_sets_a_verdict_a_checked_correction_and_a_note(api, user, scripted_server):
    deploy(api, user, scripted_server.base_url, log_predictions=True)
    api.post("/api/deployments/cap/predict/", {"input": FRANCE}, format="json")
    row = PredictionLog.objects.get()
    url = f"/api/deployments/cap/predictions/{row.pk}/"

    response = api.patch(
        url, {"verdict": "wrong", "correction": {"answer": "Paris!"}, "note": "typo"}, format="json"
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["verdict"], body["correction"], body["note"]) == (
        "wrong",
        {"answer": "Paris!"},
        "typo",
    )
    assert body["reviewed_at"] is not None
    assert listed(api, "?verdict=wrong")["results"][0]["id"] == row.pk

    bad = api.patch(url, {"correction": {"answer": 3}}, format="json")
    assert bad.status_code == 400
    assert [e["path"] for e in bad.json()["errors"]] == ["correction.answer"]
    missing = api.patch(url, {"correction": {}}, format="json")
    assert [e["path"] for e in missing.json()["errors"]] == ["correction.answer"]
    assert api.patch(url, {"verdict": "so-so"}, format="json").status_code == 400
    assert PredictionLog.objects.get().correction == {"answer": "Paris!"}

    cleared = api.patch(url, {"verdict": None, "correction": None}, format="json").json()
    assert (cleared["verdict"], cleared["correction"], cleared["note"]) == (None, None, "typo")


def test_the_sweep_deletes_only_rows_past_their_deployments_retention(api, user, scripted_server):
    short = deploy(api, user, scripted_server.base_url, name="short", log_retention_days=1)
    long = deploy(api, user, scripted_server.base_url, name="long", log_retention_days=30)
    now = timezone.now()
    seed(short, 5, start=now - timedelta(days=3))
    kept_short = seed(short, 2, start=now - timedelta(hours=2))
    kept_long = seed(long, 4, start=now - timedelta(days=3))
    seed(long, 3, start=now - timedelta(days=40))

    assert prediction_log.sweep(chunk=2) == 5 + 3
    assert set(PredictionLog.objects.values_list("pk", flat=True)) == {
        r.pk for r in kept_short + kept_long
    }
    assert sweep_prediction_logs() == 0


def test_the_sweep_is_scheduled(settings):
    schedule = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "deployments.sweep_prediction_logs" in schedule


def test_deleting_a_deployment_deletes_its_log(api, user, scripted_server):
    deployment = deploy(api, user, scripted_server.base_url)
    seed(deployment, 3, start=timezone.now())
    assert api.delete("/api/deployments/cap/").status_code == 204
    assert PredictionLog.objects.count() == 0


def test_the_output_filter_looks_at_a_bounded_window_and_goes_on_from_it(
    api, user, scripted_server, monkeypatch
):
    """A filter with no index never scans a whole log in one request: a page may come back
    short (even empty) with a `next` that goes on, and the pages together hold every match."""
    monkeypatch.setattr(prediction_log, "OUTPUT_SCAN_WINDOW", 4)
    deployment = deploy(api, user, scripted_server.base_url)
    start = timezone.now() - timedelta(days=1)
    lyon = seed(deployment, 2, start=start, answer="Lyon")
    seed(deployment, 9, start=start + timedelta(hours=1))  # a stretch with no match
    lyon += seed(deployment, 3, start=start + timedelta(hours=2), answer="Lyon")
    pages: list[list[int]] = []
    query = "?limit=2&output_field=answer&output_value=Lyon"
    while True:
        page = listed(api, query)
        pages.append([r["id"] for r in page["results"]])
        if page["next"] is None:
            break
        query = f"?limit=2&output_field=answer&output_value=Lyon&cursor={page['next']}"
    newest_first = sorted(lyon, key=lambda r: (r.created_at, r.pk), reverse=True)
    assert [pk for page in pages for pk in page] == [r.pk for r in newest_first]
    assert [] in pages  # the stretch without a match came back as an empty page, not a scan
    assert all(len(page) <= 2 for page in pages)
