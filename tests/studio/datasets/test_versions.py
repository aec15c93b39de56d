"""Dataset versions: immutable, stored as deltas, each with its counts, digest and diff."""

from __future__ import annotations

import hashlib
import json

import pytest

from studio.datasets import services, versions
from studio.datasets.models import Dataset, DatasetRowChange, DatasetVersion
from studio.datasets.splits import split_indices

pytestmark = pytest.mark.django_db


def rows_file(count: int) -> bytes:
    return "".join(
        json.dumps({"query": f"q{i}", "answer": i, "tags": []}) + "\n" for i in range(count)
    ).encode()


@pytest.fixture
def dataset(api, upload) -> Dataset:
    response = upload(api, rows_file(20), test_fraction=0.25)
    assert response.status_code == 201, response.json()
    found = Dataset.objects.get(pk=response.json()["id"])
    assert found.status == Dataset.Status.VALID
    return found


def full_digest(version: DatasetVersion) -> str:
    """The digest recomputed from the rows themselves (what the index spares us)."""
    digest = hashlib.sha256()
    for row in versions.iter_rows(version):
        digest.update(bytes([row.split == "test"]))
        digest.update(bytes.fromhex(versions.row_hash(row.input, row.output)))
    return digest.hexdigest()


def test_an_upload_is_version_1_with_its_counts_digest_and_row_index(api, dataset):
    body = api.get(f"/api/datasets/{dataset.pk}/versions/").json()

    assert [v["number"] for v in body] == [1]
    (first,) = body
    assert first["source"] == "upload" and first["parent"] is None
    assert (first["row_count"], first["train_count"], first["test_count"]) == (20, 15, 5)
    version = DatasetVersion.objects.get(dataset=dataset, number=1)
    assert first["digest"] == version.digest == full_digest(version)
    assert version.index.size == 20 * 32  # one sha256 per row, the rows themselves not copied
    # The split is the one the studio always drew: runs from before versions keep theirs.
    _, test = split_indices(20, test_fraction=0.25, seed=0)
    x_test, _ = services.load_examples(dataset, split="test")
    assert [x["query"] for x in x_test] == [f"q{i}" for i in test]
    assert api.get(f"/api/datasets/{dataset.pk}/").json()["latest_version"] == 1


def test_a_new_version_adds_removes_and_edits_and_leaves_its_parent_as_it_was(api, dataset):
    x_before, y_before = services.load_examples(dataset, split="all")
    response = api.post(
        f"/api/datasets/{dataset.pk}/versions/",
        {
            "message": "fix q3, drop q4, two new rows",
            "add": [
                {"input": {"query": "new test"}, "output": {"answer": 100}, "split": "test"},
                {"input": {"query": "new train"}, "output": {"answer": "101"}, "split": "train"},
            ],
            "remove": [5],
            "edit": [{"row_id": 4, "output": {"answer": 33, "tags": ["fixed"]}}],
        },
        format="json",
    )

    assert response.status_code == 201, response.json()
    second = response.json()
    assert second["number"] == 2 and second["parent"] == 1 and second["source"] == "edit"
    assert (second["added"], second["removed"], second["changed"]) == (2, 1, 1)
    assert second["row_count"] == 21
    assert second["test_count"] == 5 + 1 - (
        1 if 4 in split_indices(20, test_fraction=0.25, seed=0)[1] else 0
    )
    version = DatasetVersion.objects.get(dataset=dataset, number=2)
    assert second["digest"] == full_digest(version) != versions.first_version(dataset).digest
    # Only the four changed rows are stored, never a copy of the 19 kept.
    assert DatasetRowChange.objects.filter(version=version).count() == 4

    rows = {r.row_id: r for r in versions.iter_rows(version)}
    assert 5 not in rows and rows[4].output == {"answer": 33.0, "tags": ["fixed"]}
    assert rows[4].input == {"query": "q3"}
    assert rows[21].input == {"query": "new test"} and rows[21].split == "test"
    assert rows[22].output == {"answer": 101.0, "tags": None} and rows[22].split == "train"
    # The parent is immutable: version 1 reads as before.
    first = versions.first_version(dataset)
    assert services.load_examples(dataset, split="all", version=first) == (x_before, y_before)
    # A row keeps its split when rows are added: no old row moved to the other side.
    old_splits = {r.row_id: r.split for r in versions.iter_rows(first)}
    assert all(rows[i].split == old_splits[i] for i in rows if i <= 20)

    diff = api.get(f"/api/datasets/{dataset.pk}/versions/2/diff/").json()
    assert diff["parent"] == 1 and (diff["added"], diff["removed"], diff["changed"]) == (2, 1, 1)
    (changed,) = diff["rows"]["changed"]
    assert changed["row_id"] == 4
    assert changed["previous_output"] == {"answer": 3.0, "tags": []}
    assert changed["output"] == {"answer": 33.0, "tags": ["fixed"]}
    (removed,) = diff["rows"]["removed"]
    assert removed["previous_input"] == {"query": "q4"} and removed["input"] is None
    assert [r["input"]["query"] for r in diff["rows"]["added"]] == ["new test", "new train"]
    detail = api.get(f"/api/datasets/{dataset.pk}/").json()
    assert detail["latest_version"] == 2
    # 20 uploaded, 2 added, 1 removed: the list and the detail count the newest version's rows.
    assert (detail["row_count"], detail["latest_row_count"]) == (20, 21)
    (listed,) = api.get("/api/datasets/").json()["results"]
    assert (listed["row_count"], listed["latest_row_count"]) == (20, 21)


def test_versions_build_on_versions_and_on_any_parent(api, dataset):
    url = f"/api/datasets/{dataset.pk}/versions/"
    add = {"input": {"query": "x"}, "output": {"answer": 1}, "split": "train"}
    assert api.post(url, {"add": [add]}, format="json").status_code == 201
    third = api.post(
        url, {"remove": [21], "edit": [{"row_id": 1, "input": {"query": "q0!"}}]}, format="json"
    )
    assert third.status_code == 201, third.json()
    version3 = DatasetVersion.objects.get(dataset=dataset, number=3)
    assert third.json()["digest"] == full_digest(version3)
    rows = list(versions.iter_rows(version3))
    assert len(rows) == 20 and rows[0].input == {"query": "q0!"}
    # Back to version 1's rows exactly: the same digest, whatever the path.
    fourth = api.post(url, {"edit": [{"row_id": 1, "input": {"query": "q0"}}]}, format="json")
    assert fourth.json()["digest"] == versions.first_version(dataset).digest
    # A branch from version 1.
    branch = api.post(url, {"parent": 1, "remove": [1]}, format="json").json()
    assert branch["number"] == 5 and branch["parent"] == 1 and branch["row_count"] == 19


def test_rows_of_a_version_page_by_split(api, dataset):
    api.post(
        f"/api/datasets/{dataset.pk}/versions/",
        {"add": [{"input": {"query": "t"}, "output": {"answer": 1}, "split": "test"}]},
        format="json",
    )
    page = api.get(f"/api/datasets/{dataset.pk}/versions/2/rows/?split=test&limit=4").json()
    assert page["count"] == 6 and len(page["rows"]) == 4
    rest = api.get(f"/api/datasets/{dataset.pk}/versions/2/rows/?split=test&offset=4").json()
    assert [r["row_id"] for r in rest["rows"]][-1] == 21
    assert all(r["split"] == "test" for r in page["rows"] + rest["rows"])
    bad = api.get(f"/api/datasets/{dataset.pk}/versions/2/rows/?limit=0")
    assert bad.status_code == 400


def test_a_change_that_does_not_fit_answers_400_naming_each_field(api, dataset):
    response = api.post(
        f"/api/datasets/{dataset.pk}/versions/",
        {
            "add": [
                {"input": {"query": "ok"}, "output": {"answer": "not a number"}},
                {"input": {}, "output": {"answer": 1}, "split": "validation"},
            ],
            "remove": [99],
            "edit": [{"row_id": 2}],
        },
        format="json",
    )

    assert response.status_code == 400
    paths = {e["path"] for e in response.json()["errors"]}
    assert paths == {
        "add[0].output.answer",
        "add[1].input.query",
        "add[1].split",
        "remove[0]",
        "edit[0]",
    }, response.json()
    assert DatasetVersion.objects.filter(dataset=dataset).count() == 1  # nothing stored


def test_a_version_that_changes_nothing_is_refused(api, dataset):
    response = api.post(
        f"/api/datasets/{dataset.pk}/versions/",
        {"edit": [{"row_id": 1, "input": {"query": "q0"}}]},
        format="json",
    )
    assert response.status_code == 400
    assert "nothing changes" in response.json()["errors"][0]["message"]


def test_another_users_versions_are_not_found(other_api, dataset):
    assert other_api.get(f"/api/datasets/{dataset.pk}/versions/").status_code == 404
    assert other_api.get(f"/api/datasets/{dataset.pk}/versions/1/rows/").status_code == 404
    response = other_api.post(
        f"/api/datasets/{dataset.pk}/versions/", {"remove": [1]}, format="json"
    )
    assert response.status_code == 404


def test_an_unknown_version_is_not_found(api, dataset):
    assert api.get(f"/api/datasets/{dataset.pk}/versions/7/").status_code == 404


def test_a_dataset_without_its_index_gets_it_on_first_use(api, dataset):
    version = versions.first_version(dataset)
    expected = version.digest
    version.index.delete(save=False)
    DatasetVersion.objects.filter(pk=version.pk).update(digest="", index="")

    body = api.get(f"/api/datasets/{dataset.pk}/versions/1/").json()

    assert body["digest"] == expected


def test_deleting_a_dataset_deletes_its_row_index(api, dataset, django_capture_on_commit_callbacks):
    index = versions.first_version(dataset).index
    path = index.path
    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/api/datasets/{dataset.pk}/").status_code == 204
    assert not index.storage.exists(path)
