"""A program's description follows its documents: a saved version that carries one updates
it, an import keeps the one of a plain exported file, and version messages are stored."""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def described(document: dict[str, Any], description: str | None) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    changed["program"]["description"] = description
    return changed


def test_saving_a_version_takes_the_documents_description(api, program_id, document):
    response = api.post(
        f"/api/programs/{program_id}/versions/",
        {"document": described(document, "Answer in one word."), "message": "shorter answers"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["message"] == "shorter answers"
    assert api.get(f"/api/programs/{program_id}/").json()["description"] == "Answer in one word."
    history = api.get(f"/api/programs/{program_id}/versions/").json()
    rows = history["results"] if isinstance(history, dict) else history
    assert [(v["number"], v["message"]) for v in rows][:1] == [(2, "shorter answers")]


@pytest.mark.parametrize("blank", [None, "", "   "])
def test_a_document_without_a_description_keeps_the_programs(api, program_id, document, blank):
    api.patch(f"/api/programs/{program_id}/", {"description": "Kept."}, format="json")
    response = api.post(
        f"/api/programs/{program_id}/versions/",
        {"document": described(document, blank)},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["message"] == ""  # the message is optional
    assert api.get(f"/api/programs/{program_id}/").json()["description"] == "Kept."


def test_a_new_program_takes_the_documents_description_unless_one_is_given(api, document):
    inferred = api.post(
        "/api/programs/",
        {"name": "a", "document": described(document, "From the document.")},
        format="json",
    )
    assert inferred.json()["description"] == "From the document."
    given = api.post(
        "/api/programs/",
        {"name": "b", "description": "Typed.", "document": described(document, "From the doc.")},
        format="json",
    )
    assert given.json()["description"] == "Typed."


def test_import_keeps_the_description_of_a_plain_exported_file(api, document):
    upload = io.BytesIO(json.dumps(described(document, "Answers questions.")).encode())
    upload.name = "qa-v1.json"
    response = api.post("/api/programs/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201, response.content
    assert response.json()["description"] == "Answers questions."

    body = api.post(
        "/api/programs/import/", described(document, "From a JSON body."), format="json"
    )
    assert body.json()["description"] == "From a JSON body."


def test_an_import_description_given_explicitly_wins(api, document):
    response = api.post(
        "/api/programs/import/",
        {"document": described(document, "In the document."), "description": "Chosen."},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["description"] == "Chosen."
