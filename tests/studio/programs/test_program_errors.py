"""Each error of `studio.programs.exceptions` through a real endpoint: status and body.

The actions that take a document (create, validate, try, versions, import)
document their 400s as ``{"errors": [{path, message}]}``; the others answer in
DRF's shape.
"""

from __future__ import annotations

import copy

import pytest

from studio.common.exceptions import Conflict, DomainError, NotFound
from studio.datasets.models import Dataset
from studio.programs.exceptions import (
    DocumentInvalid,
    ProgramInUse,
    ProgramNameTaken,
    TryError,
    VersionNotFound,
)
from studio.programs.models import ProgramVersion
from studio.runs.models import Run

pytestmark = pytest.mark.django_db


def test_document_invalid_answers_400_with_its_located_problems(api, document):
    assert issubclass(DocumentInvalid, DomainError) and DocumentInvalid.status == 400
    broken = copy.deepcopy(document)
    broken["compile_config"] = {"reward": {"class_name": "Nonsense", "config": {}}}
    response = api.post("/api/programs/validate/", {"document": broken}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "path": "compile_config.reward",
                "message": "unknown class 'Nonsense' for a reward (Reward)",
            }
        ]
    }
    missing = api.post("/api/programs/validate/", {}, format="json")
    assert missing.status_code == 400
    assert missing.json() == {"errors": [{"path": "document", "message": "this field is required"}]}


def test_program_name_taken_answers_400_at_name(api, program_id, document):
    assert issubclass(ProgramNameTaken, DomainError) and ProgramNameTaken.status == 400
    taken = "you already have a program named 'qa'"
    created = api.post("/api/programs/", {"name": "qa", "document": document}, format="json")
    assert created.status_code == 400  # a document action: the FieldErrors format
    assert created.json() == {"errors": [{"path": "name", "message": taken}]}
    other = api.post("/api/programs/", {"name": "b", "document": document}, format="json")
    renamed = api.patch(f"/api/programs/{other.json()['id']}/", {"name": "qa"}, format="json")
    assert renamed.status_code == 400  # not a document action: DRF's shape
    assert renamed.json() == {"name": [taken]}


def test_try_error_answers_400_at_its_path(api, program_id):
    assert issubclass(TryError, DomainError) and TryError.status == 400
    response = api.post(
        f"/api/programs/{program_id}/try/", {"input": {"query": "?"}}, format="json"
    )  # the user has no provider
    assert response.status_code == 400
    assert response.json() == {
        "errors": [{"path": "provider", "message": "add a language provider first"}]
    }


def test_version_not_found_answers_404_with_a_detail(api, program_id):
    assert issubclass(VersionNotFound, NotFound) and VersionNotFound.status == 404
    response = api.post(
        f"/api/programs/{program_id}/try/", {"input": {"query": "?"}, "version": 7}, format="json"
    )
    assert response.status_code == 404
    assert response.json() == {"detail": "no such version: 7"}


def test_program_in_use_answers_409_with_a_detail(api, user, program_id):
    assert issubclass(ProgramInUse, Conflict) and ProgramInUse.status == 409
    dataset = Dataset.objects.create(
        owner=user, name="d", format="jsonl", input_schema={}, output_schema={}
    )
    Run.objects.create(
        owner=user,
        program_version=ProgramVersion.objects.get(program_id=program_id, number=1),
        dataset=dataset,
        compile_config={},
        fit_config={},
    )
    response = api.delete(f"/api/programs/{program_id}/")
    assert response.status_code == 409
    assert response.json() == {"detail": "this program has runs; delete them before the program"}
