"""The account's DataModel library: /api/data-models/, the owner's own, names unique per
owner, schemas checked (buildable by the engine, bounded in depth)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from studio.accounts.exceptions import DataModelError
from studio.accounts.models import SavedDataModel
from studio.accounts.services import check_data_model_schema
from studio.common.jsondepth import MAX_DEPTH

pytestmark = pytest.mark.django_db

QUERY = {
    "additionalProperties": False,
    "properties": {
        "query": {"description": "The user's question", "title": "Query", "type": "string"}
    },
    "required": ["query"],
    "title": "Query",
    "type": "object",
}


def _nested(depth: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"x": node}}
    return node


def test_create_list_update_delete(api):
    created = api.post(
        "/api/data-models/",
        {"name": "Query", "class_path": "studio_editor.Query", "schema": QUERY},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["name"] == "Query" and body["schema"] == QUERY
    assert body["class_path"] == "studio_editor.Query"

    listed = api.get("/api/data-models/").json()
    assert [m["name"] for m in listed] == ["Query"]  # not paginated: the whole library

    renamed = api.patch(f"/api/data-models/{body['id']}/", {"name": "Question"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Question"
    assert renamed.json()["schema"] == QUERY

    schema = {**QUERY, "title": "Question"}
    replaced = api.put(
        f"/api/data-models/{body['id']}/", {"name": "Question", "schema": schema}, format="json"
    )
    assert replaced.status_code == 200 and replaced.json()["schema"]["title"] == "Question"

    assert api.delete(f"/api/data-models/{body['id']}/").status_code == 204
    assert api.get("/api/data-models/").json() == []


def test_class_path_is_optional(api):
    response = api.post("/api/data-models/", {"name": "Query", "schema": QUERY}, format="json")
    assert response.status_code == 201 and response.json()["class_path"] == ""


def test_names_are_unique_per_owner(api, other_api):
    assert (
        api.post("/api/data-models/", {"name": "Query", "schema": QUERY}, format="json").status_code
        == 201
    )
    again = api.post("/api/data-models/", {"name": "Query", "schema": QUERY}, format="json")
    assert again.status_code == 409
    assert "already exists" in again.json()["name"][0]
    # Another user may use the same name.
    assert (
        other_api.post(
            "/api/data-models/", {"name": "Query", "schema": QUERY}, format="json"
        ).status_code
        == 201
    )

    second = api.post("/api/data-models/", {"name": "Other", "schema": QUERY}, format="json").json()
    clash = api.patch(f"/api/data-models/{second['id']}/", {"name": "Query"}, format="json")
    assert clash.status_code == 409


def test_each_user_sees_only_their_own(api, other_api):
    mine = api.post("/api/data-models/", {"name": "Query", "schema": QUERY}, format="json").json()
    assert other_api.get("/api/data-models/").json() == []
    assert other_api.get(f"/api/data-models/{mine['id']}/").status_code == 404
    assert (
        other_api.patch(f"/api/data-models/{mine['id']}/", {"name": "x"}, format="json").status_code
        == 404
    )
    assert other_api.delete(f"/api/data-models/{mine['id']}/").status_code == 404
    assert SavedDataModel.objects.count() == 1


def test_signed_out_callers_are_refused():
    assert APIClient().get("/api/data-models/").status_code in (401, 403)


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ([1, 2], "JSON object schema"),
        (
            {"type": "object", "properties": {"x": {"type": "string"}}, "class": "os.system"},
            "usable",
        ),
        (_nested(MAX_DEPTH), "nested deeper"),
    ],
)
def test_unusable_schemas_are_refused(api, schema, words):
    response = api.post("/api/data-models/", {"name": "Bad", "schema": schema}, format="json")
    assert response.status_code == 400, response.content
    assert words in response.content.decode()
    assert not SavedDataModel.objects.exists()


def test_the_schema_check_bounds_depth_by_itself():
    # The JSON parser refuses such a body first; the service holds for other callers.
    with pytest.raises(DataModelError, match="nested deeper"):
        check_data_model_schema(_nested(MAX_DEPTH // 2))
    assert check_data_model_schema(_nested(3))


def test_an_update_checks_the_schema_too(api):
    model = api.post("/api/data-models/", {"name": "Query", "schema": QUERY}, format="json").json()
    response = api.patch(f"/api/data-models/{model['id']}/", {"schema": "text"}, format="json")
    assert response.status_code == 400
    assert SavedDataModel.objects.get().schema == QUERY
