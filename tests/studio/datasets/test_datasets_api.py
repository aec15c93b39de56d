"""Datasets API: uploads validated row by row, errors, preview, built-ins, limits, ownership."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

from studio.datasets import services, validation
from studio.datasets.models import Dataset

pytestmark = pytest.mark.django_db

GOOD_JSONL = b"".join(
    json.dumps({"query": f"q{i}", "answer": i}).encode() + b"\n" for i in range(10)
)


def _detail(api, response):
    assert response.status_code == 201, response.content
    return api.get(f"/api/datasets/{response.json()['id']}/").json()


def test_valid_jsonl_upload(api, upload):
    body = _detail(api, upload(api, GOOD_JSONL, name="good"))
    assert body["status"] == "valid"
    assert body["row_count"] == 10
    assert body["error_count"] == 0
    assert body["format"] == "jsonl"
    assert body["sha256"] == hashlib.sha256(GOOD_JSONL).hexdigest()
    assert body["size_bytes"] == len(GOOD_JSONL)


def test_valid_csv_with_mapping_and_json_cells(api, upload):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["question", "answer", "tags"])
    writer.writerow(["What is 1+1?", "2", '["easy"]'])
    writer.writerow(["Multi\nline", "3.5", ""])
    response = upload(
        api,
        buffer.getvalue().encode(),
        filename="rows.csv",
        column_mapping={"query": "question"},
    )
    body = _detail(api, response)
    assert body["status"] == "valid", body["errors"]
    assert body["row_count"] == 2
    preview = api.get(f"/api/datasets/{body['id']}/preview/?limit=5").json()["rows"]
    assert preview[0] == {
        "line": 2,
        "input": {"query": "What is 1+1?"},
        "output": {"answer": 2.0, "tags": ["easy"]},
        "errors": [],
    }
    assert preview[1]["input"] == {"query": "Multi\nline"}
    assert preview[1]["output"]["tags"] is None


def test_valid_json_array(api, upload):
    rows = [{"query": "a", "answer": 1}, {"query": "b", "answer": 2.5}]
    body = _detail(api, upload(api, json.dumps(rows).encode(), filename="rows.json"))
    assert body["status"] == "valid"
    assert body["row_count"] == 2


@pytest.mark.parametrize(
    ("filename", "content", "expected"),
    [
        # wrong type in JSONL
        (
            "t.jsonl",
            b'{"query": "a", "answer": 1}\n{"query": "b", "answer": "many"}\n',
            [(2, "answer", "valid number")],
        ),
        # broken JSON line
        ("t.jsonl", b'{"query": "a", "answer": 1}\n{"query": "b", \n', [(2, "", "Invalid JSON")]),
        # bad UTF-8 in JSONL
        ("t.jsonl", b'{"query": "\xff\xfe", "answer": 1}\n', [(1, "", "UTF-8")]),
        # missing field in JSONL
        ("t.jsonl", b'{"answer": 1}\n', [(1, "query", "missing value")]),
        # not an object
        ("t.jsonl", b"[1, 2]\n", [(1, "", "object")]),
        # CSV: missing column in the header
        ("t.csv", b"query,score\na,1\n", [(1, "answer", "missing column")]),
        # CSV: wrong type on a row
        ("t.csv", b"query,answer\na,1\nb,lots\n", [(3, "answer", "valid number")]),
        # CSV: bad UTF-8 in a cell
        ("t.csv", b"query,answer\n\xff\xfe,1\n", [(2, "query", "UTF-8")]),
        # CSV: too many values
        ("t.csv", b"query,answer\na,1,extra\n", [(2, "", "3 values")]),
        # CSV: a structured cell that is not JSON
        ("t.csv", b"query,answer,tags\na,1,[oops\n", [(2, "tags", "expected JSON")]),
        # JSON array: wrong type in item 2
        (
            "t.json",
            b'[{"query": "a", "answer": 1}, {"query": 5, "answer": 1}]',
            [(2, "query", "valid string")],
        ),
        # JSON: broken document
        ("t.json", b'[{"query": "a",\n "answer": }]', [(2, "", "invalid JSON")]),
        # JSON: bad UTF-8
        ("t.json", b'[{"query": "\xff"}]', [(1, "", "UTF-8")]),
        # JSON: not an array
        ("t.json", b'{"query": "a"}', [(1, "", "array")]),
        # only blank lines
        ("t.jsonl", b"\n\n", [(1, "", "no rows")]),
        # CSV with a header only
        ("t.csv", b"query,answer\n", [(1, "", "no rows")]),
    ],
)
def test_bad_input_is_kept_invalid_with_located_errors(api, upload, filename, content, expected):
    response = upload(api, content, filename=filename)
    body = _detail(api, response)
    assert body["status"] == "invalid"
    found = [(e["line"], e["field"], e["message"]) for e in body["errors"]]
    assert len(found) == len(expected), found
    for (line, field, message), (want_line, want_field, fragment) in zip(
        found, expected, strict=True
    ):
        assert (line, field) == (want_line, want_field), found
        assert fragment.lower() in message.lower(), message
    errors = api.get(f"/api/datasets/{body['id']}/errors/").json()
    assert errors["error_count"] == len(expected)
    assert errors["errors"] == body["errors"]
    with pytest.raises(ValueError, match="not valid"):
        services.load_examples(Dataset.objects.get(pk=body["id"]), split="train")


def test_errors_are_capped_with_the_total(api, upload, monkeypatch):
    monkeypatch.setattr(validation, "ERROR_CAP", 5)
    content = b"".join(b'{"query": "q", "answer": "x"}\n' for _ in range(12))
    body = _detail(api, upload(api, content))
    assert body["error_count"] == 12
    assert len(body["errors"]) == 5
    assert body["errors_truncated"] is True


def test_unusable_schema_or_mapping_is_refused_and_nothing_stored(api, upload):
    response = upload(api, GOOD_JSONL, input_schema={"type": "string"})
    assert response.status_code == 400
    assert "input_schema" in response.json()
    response = upload(api, GOOD_JSONL, column_mapping={"nope": "col"})
    assert response.status_code == 400
    assert "column_mapping.nope" in response.json()
    response = upload(api, b"", filename="rows.jsonl")
    assert response.status_code == 400
    assert "empty" in response.json()["file"][0]
    response = upload(api, GOOD_JSONL, filename="rows.txt")
    assert response.status_code == 400
    assert "file" in response.json()
    response = upload(api, GOOD_JSONL, test_fraction="1.5")
    assert response.status_code == 400
    assert "test_fraction" in response.json()
    assert Dataset.objects.count() == 0


def test_size_limit_streamed(api, upload, settings):
    settings.STUDIO_UPLOAD_MAX_BYTES = 100
    response = upload(api, GOOD_JSONL)
    assert response.status_code == 413
    assert "100 bytes" in response.json()["file"][0]
    assert Dataset.objects.count() == 0


def test_size_limit_by_content_length(api, upload, settings):
    settings.STUDIO_UPLOAD_MAX_BYTES = 10
    response = upload(api, b"x" * (1024 * 1024 + 100))
    assert response.status_code == 413
    assert "10 bytes" in response.json()["file"][0]
    assert Dataset.objects.count() == 0


def test_load_examples_splits_deterministically(api, upload):
    body = _detail(api, upload(api, GOOD_JSONL, test_fraction="0.3", split_seed="7"))
    dataset = Dataset.objects.get(pk=body["id"])
    x_train, y_train = services.load_examples(dataset, split="train")
    x_test, y_test = services.load_examples(dataset, split="test")
    x_all, _ = services.load_examples(dataset, split="all")
    assert len(x_test) == 3 and len(x_train) == 7
    assert sorted(x["query"] for x in x_train + x_test) == sorted(x["query"] for x in x_all)
    assert {x["query"]: y["answer"] for x, y in zip(x_train, y_train, strict=True)} == {
        x["query"]: float(x["query"][1:]) for x in x_train
    }
    assert services.load_examples(dataset, split="test") == (x_test, y_test)
    dataset.split_seed = 8
    assert services.load_examples(dataset, split="test")[0] != x_test
    with pytest.raises(ValueError, match="split"):
        services.load_examples(dataset, split="validation")


def test_list_filter_order_and_update(api, upload):
    upload(api, GOOD_JSONL, name="b-good")
    upload(api, b'{"query": 1}\n', name="a-bad")
    listed = api.get("/api/datasets/?ordering=name").json()
    assert [d["name"] for d in listed["results"]] == ["a-bad", "b-good"]
    assert listed["count"] == 2
    assert "errors" not in listed["results"][0]
    upload(api, b'[{"query": "q", "answer": 1}]', filename="c.json", name="c-json")
    by_format = api.get("/api/datasets/?file_format=json").json()
    assert [d["name"] for d in by_format["results"]] == ["c-json"]
    assert api.get("/api/datasets/?name__icontains=GOOD").json()["count"] == 1
    invalid = api.get("/api/datasets/?status=invalid").json()
    assert [d["name"] for d in invalid["results"]] == ["a-bad"]
    dataset_id = invalid["results"][0]["id"]
    response = api.patch(f"/api/datasets/{dataset_id}/", {"name": "renamed"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "renamed"


def test_delete_removes_the_file(api, upload, django_capture_on_commit_callbacks):
    body = _detail(api, upload(api, GOOD_JSONL))
    path = Path(Dataset.objects.get(pk=body["id"]).file.path)
    assert path.is_file()
    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/api/datasets/{body['id']}/").status_code == 204
    assert not Dataset.objects.filter(pk=body["id"]).exists()
    assert not path.exists()


def test_preview_limit_is_checked(api, upload):
    body = _detail(api, upload(api, GOOD_JSONL))
    assert len(api.get(f"/api/datasets/{body['id']}/preview/?limit=3").json()["rows"]) == 3
    response = api.get(f"/api/datasets/{body['id']}/preview/?limit=0")
    assert response.status_code == 400
    assert "limit" in response.json()


def test_other_user_gets_404(api, other_api, upload):
    body = _detail(api, upload(api, GOOD_JSONL))
    base = f"/api/datasets/{body['id']}"
    for url in [f"{base}/", f"{base}/errors/", f"{base}/preview/"]:
        assert other_api.get(url).status_code == 404, url
    assert other_api.patch(f"{base}/", {"name": "x"}, format="json").status_code == 404
    assert other_api.delete(f"{base}/").status_code == 404
    assert other_api.post(f"{base}/revalidate/").status_code == 404
    assert other_api.get("/api/datasets/").json()["count"] == 0
    assert Dataset.objects.get(pk=body["id"]).name == body["name"]


def test_catalogue(api, shared_data):
    response = api.get("/api/datasets/catalogue/")
    assert response.status_code == 200
    entries = {entry["name"]: entry for entry in response.json()}
    assert entries["gsm8k"]["input_schema"]["properties"]["question"]["type"] == "string"
    assert "answer" in entries["gsm8k"]["output_schema"]["properties"]


def test_builtin_gsm8k(api, shared_data):
    response = api.post(
        "/api/datasets/builtin/", {"builtin_name": "gsm8k", "limit": 5}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "valid"
    assert body["format"] == "builtin"
    assert body["row_count"] == 10
    dataset = Dataset.objects.get(pk=body["id"])
    x_train, y_train = services.load_examples(dataset, split="train")
    assert len(x_train) == 5
    assert x_train[0]["question"].startswith("Natalia")
    assert y_train[0]["answer"] == 72.0
    assert len(services.load_examples(dataset, split="all")[0]) == 10
    preview = api.get(f"/api/datasets/{body['id']}/preview/?limit=2").json()["rows"]
    assert len(preview) == 2


def test_builtin_unknown_name(api):
    response = api.post("/api/datasets/builtin/", {"builtin_name": "imagenet"}, format="json")
    assert response.status_code == 400
    assert "builtin_name" in response.json()


def _session_client(user_password: str = "correct horse battery"):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    token = client.get("/api/auth/csrf/").cookies["csrftoken"].value
    response = client.post(
        "/api/auth/login/",
        {"username": "ada", "password": user_password},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 200
    return client, client.cookies["csrftoken"].value


def test_session_upload_needs_csrf_and_respects_the_limit(user, settings):
    client, token = _session_client()

    def post(content: bytes, **headers):
        handle = io.BytesIO(content)
        handle.name = "rows.jsonl"
        body = {
            "file": handle,
            "name": "s",
            "input_schema": json.dumps(
                {"type": "object", "properties": {"query": {"type": "string"}}}
            ),
            "output_schema": json.dumps(
                {"type": "object", "properties": {"answer": {"type": "number"}}}
            ),
        }
        return client.post("/api/datasets/", body, format="multipart", **headers)

    assert post(GOOD_JSONL).status_code == 403
    assert post(GOOD_JSONL, HTTP_X_CSRFTOKEN=token).status_code == 201
    settings.STUDIO_UPLOAD_MAX_BYTES = 50
    response = post(GOOD_JSONL, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 413
    assert "50 bytes" in response.json()["file"][0]
    assert Dataset.objects.count() == 1


def test_validation_task_skips_a_deleted_dataset():
    from studio.datasets.tasks import validate_dataset

    assert validate_dataset.delay(123456).get() == "missing"


def test_explicit_format_overrides_the_extension(api, upload):
    body = _detail(api, upload(api, GOOD_JSONL, filename="rows.txt", format="jsonl"))
    assert body["format"] == "jsonl"
    assert body["status"] == "valid"
