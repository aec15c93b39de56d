"""Uploads with bad rows: keep the valid ones (recorded), the raw text of each bad row,
and the train / test split chosen at upload."""

from __future__ import annotations

import json

import pytest

from studio.datasets import services
from studio.datasets.models import Dataset

pytestmark = pytest.mark.django_db


def jsonl(rows: list[object]) -> bytes:
    return b"".join((r if isinstance(r, str) else json.dumps(r)).encode() + b"\n" for r in rows)


ROWS = [{"query": f"q{i}", "answer": i} for i in range(10)]
# Lines 3 and 7 are bad: a string answer, and broken JSON.
WITH_BAD_ROWS = jsonl(
    [*ROWS[:2], {"query": "q", "answer": "two"}, *ROWS[2:5], '{"query": "cut', *ROWS[5:]]
)


def _detail(api, response):
    assert response.status_code == 201, response.content
    return api.get(f"/api/datasets/{response.json()['id']}/").json()


def test_a_bad_row_leaves_the_dataset_invalid_by_default_with_its_text(api, upload):
    body = _detail(api, upload(api, WITH_BAD_ROWS))
    assert body["status"] == "invalid"
    assert body["keep_valid_rows"] is False
    assert body["dropped_count"] == 0 and body["dropped_lines"] == []
    by_line = {e["line"]: e for e in body["errors"]}
    assert set(by_line) == {3, 7}
    assert by_line[3]["field"] == "answer"
    assert by_line[3]["raw"] == '{"query": "q", "answer": "two"}'
    assert by_line[7]["raw"] == '{"query": "cut'


def test_keeping_the_valid_rows_drops_the_bad_ones_and_says_which(api, upload):
    body = _detail(api, upload(api, WITH_BAD_ROWS, keep_valid_rows="true"))
    assert body["status"] == "valid", body["errors"]
    assert body["keep_valid_rows"] is True
    assert body["row_count"] == 10
    assert body["dropped_count"] == 2 and body["dropped_lines"] == [3, 7]
    assert body["error_count"] == 2  # why they were dropped
    listed = api.get("/api/datasets/").json()["results"][0]
    assert listed["dropped_count"] == 2 and "dropped_lines" not in listed

    dataset = Dataset.objects.get(pk=body["id"])
    x, y = services.load_examples(dataset, split="all")
    assert [row["query"] for row in x] == [f"q{i}" for i in range(10)]
    assert [row["answer"] for row in y] == list(range(10))


def test_keeping_the_valid_rows_cannot_save_a_file_whose_rest_is_unreadable(api, upload):
    # An unbalanced quote: the CSV reader cannot tell where the rows after it start.
    content = b'query,answer\nq1,1\n"q2,2\nq3,3\n'
    body = _detail(api, upload(api, content, filename="rows.csv", keep_valid_rows="true"))
    assert body["status"] == "invalid"
    assert body["dropped_count"] == 0


def test_keeping_the_valid_rows_of_a_file_with_none_is_still_invalid(api, upload):
    content = jsonl([{"query": "a", "answer": "x"}, {"query": "b", "answer": "y"}])
    body = _detail(api, upload(api, content, keep_valid_rows="true"))
    assert body["status"] == "invalid"


def test_a_bad_csv_row_shows_its_line_as_written(api, upload):
    long_question = "why " * 100
    content = f"query,answer\nfine,1\n{long_question},not a number\nshort\n".encode()
    body = _detail(api, upload(api, content, filename="rows.csv", keep_valid_rows="true"))
    by_line = {e["line"]: e for e in body["errors"]}
    assert by_line[3]["raw"].startswith("why why") and by_line[3]["raw"].endswith("\u2026")
    assert len(by_line[3]["raw"]) == 200
    assert by_line[4]["raw"] == "short"
    assert body["status"] == "valid" and body["row_count"] == 1
    assert body["dropped_lines"] == [3, 4]


def test_a_bad_item_of_a_json_array_shows_its_json(api, upload):
    content = json.dumps([{"query": "a", "answer": 1}, {"query": "b", "answer": "x"}, 5])
    body = _detail(api, upload(api, content.encode(), filename="rows.json"))
    by_line = {e["line"]: e for e in body["errors"]}
    assert by_line[2]["raw"] == '{"query": "b", "answer": "x"}'
    assert by_line[3]["raw"] == "5"


@pytest.mark.parametrize(
    ("fields", "test_rows"),
    [({}, 2), ({"test_fraction": "0.5", "split_seed": "7"}, 5), ({"test_fraction": "0"}, 0)],
)
def test_the_split_chosen_at_upload_is_stored_and_honoured(api, upload, fields, test_rows):
    body = _detail(api, upload(api, jsonl(ROWS), **fields))
    dataset = Dataset.objects.get(pk=body["id"])
    assert body["test_fraction"] == float(fields.get("test_fraction", 0.2))
    assert body["split_seed"] == int(fields.get("split_seed", 0))
    x_test, _ = services.load_examples(dataset, split="test")
    x_train, _ = services.load_examples(dataset, split="train")
    assert len(x_test) == test_rows and len(x_train) == 10 - test_rows
    assert {r["query"] for r in x_test} | {r["query"] for r in x_train} == {
        f"q{i}" for i in range(10)
    }


def test_the_seed_decides_which_rows_are_held_out(api, upload):
    tests = []
    for seed in ("1", "2"):
        body = _detail(api, upload(api, jsonl(ROWS), test_fraction="0.3", split_seed=seed))
        x_test, _ = services.load_examples(Dataset.objects.get(pk=body["id"]), split="test")
        tests.append([r["query"] for r in x_test])
    assert len(tests[0]) == len(tests[1]) == 3 and tests[0] != tests[1]
