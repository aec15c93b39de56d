"""A corpus of bad uploads: each ends `invalid` with a reason, and the API never answers 500.

Malformed CSV / JSON / JSON Lines, wrong encodings, huge lines, deep nesting,
empty and binary files; unusable schemas; and a validation that fails in a way
nobody foresaw, which must still end the dataset `invalid`, never `validating`.
"""

from __future__ import annotations

import json
import random

import pytest

from studio.common.jsondepth import MAX_DEPTH
from studio.datasets import services, tasks
from studio.datasets.models import Dataset
from tests.studio.datasets.conftest import ANSWER_SCHEMA, QUERY_SCHEMA

pytestmark = pytest.mark.django_db

GOOD_CSV = "query,answer\nWhat is 1+1?,2\n"
GOOD_JSON = '[{"query": "q", "answer": 1}]'


def deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def garbage(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


CORPUS = {
    # blank (an empty file is refused at upload: see below)
    "blank.jsonl": b"\n  \n\t\n",
    "blank.json": b"   \n",
    "header-only.csv": b"query,answer\n",
    "empty-array.json": b"[]",
    # malformed CSV
    "unterminated-quote.csv": b'query,answer\n"What is,1\n',
    "short-row.csv": b"query,answer\nq\n",
    "missing-column.csv": b"question,answer\nq,1\n",
    "duplicate-column.csv": b"query,query,answer\nq,q,1\n",
    "bad-json-cell.csv": b'query,answer,tags\nq,1,"[unclosed"\n',
    # malformed JSON
    "unterminated.json": b'[{"query": "q", "answer": 1}',
    "object-not-array.json": b'{"query": "q", "answer": 1}',
    "scalar-items.json": b"[1, 2, 3]",
    "trailing-garbage.json": b'[{"query": "q", "answer": 1}] trailing',
    "missing-comma.json": b'[{"query": "q", "answer": 1} {"query": "r", "answer": 2}]',
    "nan.json": b'[{"query": "q", "answer": NaN}]',
    # malformed JSON Lines
    "not-json.jsonl": b"not json\n",
    "array-line.jsonl": b"[1, 2]\n",
    "string-line.jsonl": b'"just a string"\n',
    "half-line.jsonl": b'{"query": "q", "answer": 1}\n{"query": "r", "ans',
    "wrong-types.jsonl": b'{"query": 5, "answer": "five"}\n',
    # wrong encodings
    "utf16.csv": GOOD_CSV.encode("utf-16"),
    "utf16.json": GOOD_JSON.encode("utf-16"),
    "utf16.jsonl": b'{"query": "q", "answer": 1}\n'.decode().encode("utf-16"),
    "latin1.csv": "query,answer\ncafé,1\n".encode("latin-1") + b"\xff\xfe,2\n",
    "latin1.jsonl": '{"query": "café", "answer": 1}\n'.encode("latin-1"),
    "latin1.json": '[{"query": "café", "answer": 1}]'.encode("latin-1"),
    # huge lines
    "huge-cell.csv": b"query,answer\n" + b"x" * 300_000 + b",1\n",
    "huge-line.jsonl": b'{"query": "' + b"x" * 3_000_000 + b'"}\n',
    "huge-item.json": b'[{"query": "' + b"x" * 3_000_000 + b'", "answer": "not a number"}]',
    # deep nesting
    "deep-100000.jsonl": b'{"query": "q", "answer": 1, "tags": ' + deep(100_000) + b"}\n",
    "deep-500.jsonl": b'{"query": "q", "answer": 1, "tags": ' + deep(500) + b"}\n",
    "deep-100.jsonl": b'{"query": "q", "answer": 1, "tags": ' + deep(100) + b"}\n",
    "deep-100000.json": b'[{"query": "q", "answer": 1, "tags": ' + deep(100_000) + b"}]",
    "deep-500.json": b'[{"query": "q", "answer": 1, "tags": ' + deep(500) + b"}]",
    "deep-60000.csv": b'query,answer,tags\nq,1,"' + deep(60_000) + b'"\n',
    "deep-500.csv": b'query,answer,tags\nq,1,"' + deep(500) + b'"\n',
    # binary
    "garbage.csv": garbage(4096, 1),
    "garbage.json": garbage(4096, 2),
    "garbage.jsonl": garbage(4096, 3),
}


@pytest.mark.parametrize("filename", sorted(CORPUS))
def test_a_bad_upload_ends_invalid_with_a_reason(api, upload, filename):
    response = upload(api, CORPUS[filename], filename=filename)
    assert response.status_code == 201, response.content
    dataset_id = response.json()["id"]
    body = api.get(f"/api/datasets/{dataset_id}/").json()
    assert body["status"] == "invalid", (filename, body)
    assert body["error_count"] >= 1
    assert body["errors"] and all(error["message"] for error in body["errors"])
    errors = api.get(f"/api/datasets/{dataset_id}/errors/")
    assert errors.status_code == 200
    preview = api.get(f"/api/datasets/{dataset_id}/preview/?limit=5")
    assert preview.status_code in (200, 400), preview.content
    assert api.post(f"/api/datasets/{dataset_id}/revalidate/").status_code == 202
    assert Dataset.objects.get(pk=dataset_id).status == Dataset.Status.INVALID


@pytest.mark.parametrize("filename", ["empty.csv", "empty.jsonl", "empty.json"])
def test_an_empty_file_is_refused_at_upload(api, upload, filename):
    response = upload(api, b"", filename=filename)
    assert response.status_code == 400
    assert response.json() == {"file": ["The submitted file is empty."]}
    assert not Dataset.objects.exists()


def test_undecodable_bytes_in_a_header_are_reported_as_text(api, upload):
    response = upload(api, b"query,answer,caf\xe9\nq,1,x\n", filename="rows.csv")
    body = api.get(f"/api/datasets/{response.json()['id']}/").json()
    assert body["status"] == "invalid"
    assert body["errors"][0]["field"] == "caf\ufffd"


@pytest.mark.parametrize(
    ("filename", "where"),
    [
        ("deep-100000.json", ""),
        ("deep-500.json", ""),
        ("deep-60000.csv", "tags"),
        ("deep-100000.jsonl", ""),
        ("deep-100.jsonl", ""),
    ],
)
def test_deep_nesting_is_named_with_the_limit(api, upload, filename, where):
    response = upload(api, CORPUS[filename], filename=filename)
    body = api.get(f"/api/datasets/{response.json()['id']}/").json()
    assert body["errors"][0]["field"] == where
    assert f"deeper than {MAX_DEPTH} levels" in body["errors"][0]["message"]


def test_rows_after_a_too_deep_but_readable_item_are_still_validated(api, upload):
    content = b'[{"query": "q", "answer": 1, "tags": ' + deep(500) + b'}, {"query": 3}]'
    response = upload(api, content, filename="rows.json")
    body = api.get(f"/api/datasets/{response.json()['id']}/").json()
    assert body["row_count"] == 2
    assert [error["line"] for error in body["errors"]] == [1, 2, 2]


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        (
            {
                "type": "object",
                "properties": {"node": {"$ref": "#/$defs/Node"}},
                "$defs": {
                    "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}
                },
            },
            "input_schema.$defs.Node.properties.next.$ref",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {
                    "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                    "B": {
                        "type": "object",
                        "properties": {"a": {"type": "array", "items": {"$ref": "#/$defs/A"}}},
                    },
                },
            },
            "input_schema.$defs.B.properties.a.items.$ref",
        ),
        (
            {"type": "object", "properties": {"q": {"type": []}}},
            "input_schema.properties.q.type",
        ),
        (
            {"type": "object", "properties": {"q": {"anyOf": []}}},
            "input_schema.properties.q.anyOf",
        ),
        (
            {"type": "object", "properties": {"q": {"oneOf": []}}},
            "input_schema.properties.q.oneOf",
        ),
        (
            {"type": "object", "properties": {"q": {"anyOf": [{"type": "string"}, {"allOf": []}]}}},
            "input_schema.properties.q.anyOf[1].allOf",
        ),
    ],
)
def test_an_unusable_schema_answers_400_with_its_path(api, upload, schema, path):
    response = upload(api, GOOD_CSV.encode(), filename="rows.csv", input_schema=schema)
    assert response.status_code == 400, response.content
    assert list(response.json()) == [path]
    assert not Dataset.objects.exists()


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"q": {"type": "nonsense"}}},
        {"type": "object", "properties": {"q": {"enum": 5}}},
        {"type": "object", "properties": {"q": {"$ref": "#/$defs/Missing"}}},
        {"type": "object", "$defs": [], "properties": {"q": {"$ref": "#/$defs/X"}}},
        {"type": "object", "properties": {"q": {"type": ["string", ["nested"]]}}},
        {"type": "object", "properties": []},
        {"type": "object", "properties": {"q": None}},
    ],
)
def test_odd_schemas_answer_400_never_500(api, upload, schema):
    response = upload(api, GOOD_CSV.encode(), filename="rows.csv", input_schema=schema)
    assert response.status_code == 400, response.content


def test_a_schema_sent_as_json_text_too_deep_answers_400(api, upload):
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    for _ in range(MAX_DEPTH):
        schema = {"type": "object", "properties": {"q": schema}}
    response = upload(api, GOOD_CSV.encode(), filename="rows.csv", input_schema=schema)
    assert response.status_code == 400
    assert "deeper than" in json.dumps(response.json())


def test_any_failure_of_the_validation_ends_the_dataset_invalid(api, upload, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(services, "validate_file", explode)
    response = upload(api, GOOD_CSV.encode(), filename="rows.csv")
    body = api.get(f"/api/datasets/{response.json()['id']}/").json()
    assert body["status"] == "invalid"
    assert body["errors"] == [
        {
            "line": 0,
            "field": "file",
            "message": "the file could not be validated (RuntimeError: disk on fire)",
        }
    ]


def test_the_task_ends_the_dataset_invalid_when_the_service_itself_fails(api, upload, monkeypatch):
    monkeypatch.setattr(services, "enqueue_validation", lambda dataset_id: None)
    dataset_id = upload(api, GOOD_CSV.encode(), filename="rows.csv").json()["id"]
    Dataset.objects.filter(pk=dataset_id).update(status=Dataset.Status.VALIDATING)

    def explode(dataset):
        raise MemoryError("out of memory")

    monkeypatch.setattr(services, "validate_dataset", explode)
    assert tasks.validate_dataset(dataset_id) == "invalid"
    dataset = Dataset.objects.get(pk=dataset_id)
    assert dataset.status == Dataset.Status.INVALID
    assert "MemoryError: out of memory" in dataset.errors[0]["message"]


def test_the_preview_never_answers_500(api, upload, monkeypatch):
    dataset_id = upload(api, GOOD_CSV.encode(), filename="rows.csv").json()["id"]

    def explode(dataset, *, limit):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(services, "preview_rows", explode)
    response = api.get(f"/api/datasets/{dataset_id}/preview/")
    assert response.status_code == 400
    assert "RecursionError" in response.json()["file"][0]


def test_the_good_files_of_the_corpus_are_still_valid(api, upload):
    for filename, content in (("rows.csv", GOOD_CSV), ("rows.json", GOOD_JSON)):
        response = upload(api, content.encode(), filename=filename)
        body = api.get(f"/api/datasets/{response.json()['id']}/").json()
        assert body["status"] == "valid", (filename, body["errors"])
    assert QUERY_SCHEMA["required"] == ["query"] and "tags" in ANSWER_SCHEMA["properties"]
