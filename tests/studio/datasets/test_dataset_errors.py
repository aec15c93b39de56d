"""Each error of `studio.datasets.exceptions` through a real endpoint: status and body."""

from __future__ import annotations

import pytest

from studio.common.exceptions import Conflict, DomainError, TooLarge
from studio.datasets.exceptions import (
    DatasetError,
    DatasetInUse,
    DatasetUnreadable,
    UploadTooLarge,
)
from studio.datasets.models import Dataset
from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db

GOOD_JSONL = b'{"query": "a", "answer": 1}\n{"query": "b", "answer": 2}\n'


def test_dataset_error_answers_400_at_its_path(api):
    assert issubclass(DatasetError, DomainError) and DatasetError.status == 400
    response = api.post("/api/datasets/builtin/", {"builtin_name": "nope"}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["builtin_name"]
    assert "nope" in response.json()["builtin_name"][0]


def test_a_schema_refused_by_the_service_names_its_path(api, upload):
    schema = {"type": "object", "properties": {"query": {"anyOf": []}}}
    response = upload(api, GOOD_JSONL, input_schema=schema)
    assert response.status_code == 400
    assert response.json() == {
        "input_schema.properties.query.anyOf": [
            "`input_schema.properties.query.anyOf` must be a non-empty list of schemas"
        ]
    }


def test_dataset_unreadable_answers_400_at_file(api, upload):
    assert issubclass(DatasetUnreadable, DatasetError)
    dataset_id = upload(api, GOOD_JSONL).json()["id"]
    dataset = Dataset.objects.get(pk=dataset_id)
    dataset.file.storage.delete(dataset.file.name)
    response = api.get(f"/api/datasets/{dataset_id}/preview/")
    assert response.status_code == 400
    assert list(response.json()) == ["file"]
    assert response.json()["file"][0].startswith("the dataset cannot be read: ")


def test_upload_too_large_answers_413_at_file(api, upload, settings):
    assert issubclass(UploadTooLarge, TooLarge) and UploadTooLarge.status == 413
    settings.STUDIO_UPLOAD_MAX_BYTES = 20
    response = upload(api, GOOD_JSONL)
    assert response.status_code == 413
    assert response.json() == {
        "file": ["the file is larger than the upload limit of 20 bytes (0.0 MB)"]
    }


def test_dataset_in_use_answers_409_with_a_detail(api, user):
    assert issubclass(DatasetInUse, Conflict) and DatasetInUse.status == 409
    dataset = make_dataset(user)
    Run.objects.create(
        owner=user,
        program_version=make_version(user),
        dataset=dataset,
        provider=make_provider(user, "http://provider.invalid/v1"),
        compile_config=COMPILE_CONFIG,
        fit_config={},
    )
    response = api.delete(f"/api/datasets/{dataset.pk}/")
    assert response.status_code == 409
    assert response.json() == {"detail": "runs use this dataset; delete them before the dataset"}
