"""Programs API: CRUD, immutable versions, validation paths, diff, import / export, ownership."""

from __future__ import annotations

import copy
import io
import json

import pytest

import optimizer_core as oc
from studio.programs.models import Program, ProgramVersion

pytestmark = pytest.mark.django_db


def test_create_program_stores_version_1(api, document):
    response = api.post(
        "/api/programs/",
        {"name": "qa", "description": "d", "document": document, "layout": {"n": [1, 2]}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == "qa"
    assert body["latest_version"] == 1
    assert body["version_count"] == 1
    version = api.get(f"/api/programs/{body['id']}/versions/1/").json()
    assert version["layout"] == {"n": [1, 2]}
    # The stored document loads in optimizer_core.
    program = oc.Program.from_json(version["document"])
    assert [m.name for m in program.modules][-1] == "answer"


def test_new_versions_are_numbered_and_old_ones_unchanged(api, program_id, make_document):
    v1 = api.get(f"/api/programs/{program_id}/versions/1/").json()
    second = make_document(instructions="Answer tersely.")
    response = api.post(
        f"/api/programs/{program_id}/versions/",
        {"document": second, "message": "terse"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["number"] == 2
    assert api.get(f"/api/programs/{program_id}/versions/1/").json() == v1
    listed = api.get(f"/api/programs/{program_id}/versions/").json()
    assert [v["number"] for v in listed["results"]] == [2, 1]
    assert api.get(f"/api/programs/{program_id}/").json()["latest_version"] == 2


def test_versions_cannot_be_edited_or_deleted(api, program_id, make_document):
    url = f"/api/programs/{program_id}/versions/1/"
    before = api.get(url).json()
    for method in (api.put, api.patch, api.delete):
        assert method(url, {"document": make_document()}, format="json").status_code == 405
    assert api.get(url).json() == before


def test_update_program_metadata(api, program_id):
    response = api.patch(f"/api/programs/{program_id}/", {"description": "new"}, format="json")
    assert response.status_code == 200
    assert response.json()["description"] == "new"
    assert ProgramVersion.objects.filter(program_id=program_id).count() == 1


def test_duplicate_name_is_refused_and_nothing_stored(api, program_id, document):
    response = api.post("/api/programs/", {"name": "qa", "document": document}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "name"
    assert Program.objects.count() == 1


def test_delete_program(api, program_id):
    assert api.delete(f"/api/programs/{program_id}/").status_code == 204
    assert not Program.objects.filter(pk=program_id).exists()
    assert not ProgramVersion.objects.filter(program_id=program_id).exists()


def test_list_paginates_filters_and_orders(api, document):
    for name in ["beta", "alpha", "gamma"]:
        assert (
            api.post(
                "/api/programs/", {"name": name, "document": document}, format="json"
            ).status_code
            == 201
        )
    ordered = api.get("/api/programs/?ordering=name").json()
    assert ordered["count"] == 3
    assert [p["name"] for p in ordered["results"]] == ["alpha", "beta", "gamma"]
    filtered = api.get("/api/programs/?name__icontains=amm").json()
    assert [p["name"] for p in filtered["results"]] == ["gamma"]
    page = api.get("/api/programs/?ordering=-name&page=1").json()
    assert page["results"][0]["name"] == "gamma"
    assert api.get("/api/programs/?page=9").status_code == 404


# ----------------------------------------------------------------- validation


def _errors(response):
    assert response.status_code == 400, response.content
    return response.json()["errors"]


def test_validate_accepts_a_real_document(api, document):
    response = api.post("/api/programs/validate/", {"document": document}, format="json")
    assert response.status_code == 200
    assert response.json() == {"valid": True, "errors": []}


def test_validate_locates_a_broken_data_model(api, document):
    broken = copy.deepcopy(document)
    broken["program"]["modules"][1]["module"]["config"]["data_model"] = {"name": "Answer"}
    errors = _errors(api.post("/api/programs/validate/", {"document": broken}, format="json"))
    assert errors[0]["path"] == "program.modules[1].module.config.data_model"
    assert "DataModel" in errors[0]["message"]


def test_validate_locates_an_unsupported_schema_type(api, document):
    broken = copy.deepcopy(document)
    schema = broken["program"]["modules"][1]["module"]["config"]["data_model"]["schema"]
    schema["properties"]["answer"]["type"] = "quaternion"
    errors = _errors(api.post("/api/programs/validate/", {"document": broken}, format="json"))
    assert errors[0]["path"] == "program.modules[1].module.config.data_model"
    assert "quaternion" in errors[0]["message"]


def test_validate_locates_a_bad_constructor_argument(api, document):
    broken = copy.deepcopy(document)
    broken["program"]["modules"][1]["module"]["config"]["language_model"]["config"][
        "temperature"
    ] = -1
    errors = _errors(api.post("/api/programs/validate/", {"document": broken}, format="json"))
    assert errors[0]["path"] == "program.modules[1].module.config.language_model.config.temperature"


def test_validate_locates_wiring_and_unknown_classes(api, document):
    broken = copy.deepcopy(document)
    broken["program"]["modules"][1]["inbound"] = ["nowhere"]
    broken["program"]["outputs"] = ["ghost"]
    errors = _errors(api.post("/api/programs/validate/", {"document": broken}, format="json"))
    paths = {e["path"] for e in errors}
    assert {"program.modules[1].inbound[0]", "program.outputs[0]"} <= paths

    unknown = copy.deepcopy(document)
    unknown["program"]["modules"][1]["module"]["class_name"] = "Teleporter"
    del unknown["program"]["modules"][1]["module"]["registered_name"]
    errors = _errors(api.post("/api/programs/validate/", {"document": unknown}, format="json"))
    assert errors[0]["path"] == "program.modules[1].module"
    assert "optimizer_core.modules.generator.Teleporter" in errors[0]["message"]


def test_validate_locates_unknown_variables(api, document):
    broken = copy.deepcopy(document)
    broken["variables"]["ghost/state"] = {"instructions": "x"}
    errors = _errors(api.post("/api/programs/validate/", {"document": broken}, format="json"))
    assert errors == [
        {"path": "variables.ghost/state", "message": "no module of the program has this variable"}
    ]


def test_validate_refuses_objects_outside_optimizer_core(api, document):
    hostile = copy.deepcopy(document)
    hostile["program"]["modules"][1]["module"]["config"]["language_model"]["registered_name"] = (
        "subprocess.Popen"
    )
    errors = _errors(api.post("/api/programs/validate/", {"document": hostile}, format="json"))
    assert errors[0]["path"] == "program.modules[1].module.config.language_model"
    assert "subprocess.Popen" in errors[0]["message"]


def test_validate_refuses_a_server_side_cache_dir(api, document):
    hostile = copy.deepcopy(document)
    hostile["program"]["modules"][1]["module"]["config"]["language_model"]["config"][
        "cache_dir"
    ] = "/etc"
    errors = _errors(api.post("/api/programs/validate/", {"document": hostile}, format="json"))
    assert errors[0]["path"].endswith("language_model.config.cache_dir")


@pytest.mark.parametrize(
    ("document", "path"),
    [
        ([1, 2], ""),
        ({"kind": "something"}, "kind"),
        ({"kind": "optimizer_core.program"}, "program"),
    ],
)
def test_validate_rejects_non_documents(api, document, path):
    errors = _errors(api.post("/api/programs/validate/", {"document": document}, format="json"))
    assert errors[0]["path"] == path


def test_validate_needs_a_document(api):
    errors = _errors(api.post("/api/programs/validate/", {}, format="json"))
    assert errors[0]["path"] == "document"


def test_create_and_version_refuse_invalid_documents(api, program_id, document):
    broken = copy.deepcopy(document)
    broken["program"]["modules"][1]["module"]["config"]["data_model"] = "nope"
    errors = _errors(api.post("/api/programs/", {"name": "x", "document": broken}, format="json"))
    assert errors[0]["path"] == "program.modules[1].module.config.data_model"
    errors = _errors(
        api.post(f"/api/programs/{program_id}/versions/", {"document": broken}, format="json")
    )
    assert errors[0]["path"] == "program.modules[1].module.config.data_model"
    assert Program.objects.count() == 1
    assert ProgramVersion.objects.count() == 1


# ----------------------------------------------------------------- diff


def test_diff_reports_instructions_and_modules(api, program_id, make_document):
    api.post(
        f"/api/programs/{program_id}/versions/",
        {"document": make_document(two_steps=True, instructions="Be brief.")},
        format="json",
    )
    response = api.get(f"/api/programs/{program_id}/diff/?from=1&to=2")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["from"] == 1 and body["to"] == 2
    assert body["summary"]["modules_added"] == ["think"]
    assert "answer/state" in body["summary"]["instructions_changed"]
    by_path = {c["path"]: c for c in body["changes"]}
    change = by_path["variables.answer/state.instructions"]
    assert change["op"] == "changed"
    assert change["new"] == "Be brief."
    assert by_path["program.modules[name=think]"]["op"] == "added"
    assert api.get(f"/api/programs/{program_id}/diff/?from=1&to=1").json()["changes"] == []


def test_diff_needs_existing_version_numbers(api, program_id):
    assert api.get(f"/api/programs/{program_id}/diff/?from=1&to=7").status_code == 404
    response = api.get(f"/api/programs/{program_id}/diff/?from=x&to=1")
    assert response.status_code == 400
    assert "from" in response.json()


# ----------------------------------------------------------------- import / export


def test_export_then_import_round_trips(api, program_id):
    response = api.get(f"/api/programs/{program_id}/versions/1/export/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="qa-v1.json"'
    exported = json.loads(response.content)
    assert exported == api.get(f"/api/programs/{program_id}/versions/1/").json()["document"]

    upload = io.BytesIO(response.content)
    upload.name = "qa-v1.json"
    imported = api.post("/api/programs/import/", {"file": upload}, format="multipart")
    assert imported.status_code == 201, imported.content
    assert imported.json()["name"] == "qa (2)"  # the name was taken
    new_id = imported.json()["id"]
    assert api.get(f"/api/programs/{new_id}/versions/1/").json()["document"] == exported


def test_import_json_body(api, document):
    response = api.post("/api/programs/import/", document, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "qa"
    wrapped = api.post(
        "/api/programs/import/",
        {"document": document, "name": "wrapped", "layout": {"x": 1}},
        format="json",
    )
    assert wrapped.status_code == 201
    assert wrapped.json()["name"] == "wrapped"


def test_import_refuses_bad_files(api, document):
    upload = io.BytesIO(b"\xff\xfe not json")
    upload.name = "x.json"
    errors = _errors(api.post("/api/programs/import/", {"file": upload}, format="multipart"))
    assert errors[0]["path"] == "file"
    broken = copy.deepcopy(document)
    broken["program"]["inputs"] = ["ghost"]
    errors = _errors(api.post("/api/programs/import/", broken, format="json"))
    assert errors[0]["path"] == "program.inputs[0]"
    assert Program.objects.count() == 0


# ----------------------------------------------------------------- ownership


def test_other_user_sees_nothing(api, other_api, program_id, make_document):
    api.post(f"/api/programs/{program_id}/versions/", {"document": make_document()}, format="json")
    base = f"/api/programs/{program_id}"
    for url in [
        f"{base}/",
        f"{base}/versions/",
        f"{base}/versions/1/",
        f"{base}/versions/1/export/",
        f"{base}/diff/?from=1&to=2",
    ]:
        assert other_api.get(url).status_code == 404, url
    assert other_api.patch(f"{base}/", {"name": "mine"}, format="json").status_code == 404
    assert other_api.delete(f"{base}/").status_code == 404
    assert (
        other_api.post(
            f"{base}/versions/", {"document": make_document()}, format="json"
        ).status_code
        == 404
    )
    assert other_api.get("/api/programs/").json()["count"] == 0
    assert ProgramVersion.objects.filter(program_id=program_id).count() == 2


def test_anonymous_is_refused(client, program_id):
    assert client.get("/api/programs/").status_code in (401, 403)
    assert client.get(f"/api/programs/{program_id}/").status_code in (401, 403)


def test_program_used_by_a_run_cannot_be_deleted(api, user, program_id):
    from studio.datasets.models import Dataset
    from studio.runs.models import Run

    dataset = Dataset.objects.create(
        owner=user, name="d", format="jsonl", input_schema={}, output_schema={}
    )
    version = ProgramVersion.objects.get(program_id=program_id, number=1)
    Run.objects.create(
        owner=user, program_version=version, dataset=dataset, compile_config={}, fit_config={}
    )
    response = api.delete(f"/api/programs/{program_id}/")
    assert response.status_code == 409
    assert "runs" in response.json()["detail"]
    assert Program.objects.filter(pk=program_id).exists()
    response = api.delete(f"/api/datasets/{dataset.pk}/")
    assert response.status_code == 409
    assert Dataset.objects.filter(pk=dataset.pk).exists()


def test_compile_config_errors_are_located(api, document):
    broken = copy.deepcopy(document)
    broken["compile_config"] = {"reward": {"class_name": "Nonsense", "config": {}}}
    errors = _errors(api.post("/api/programs/validate/", {"document": broken}, format="json"))
    assert errors[0]["path"].startswith("compile_config")


def test_compiled_documents_are_accepted(api, document):
    program = oc.Program.from_json(document)
    program.compile(reward="exact_match", optimizer="random_few_shot")
    compiled = program.to_json()
    assert compiled["compile_config"]["reward"] is not None
    response = api.post("/api/programs/validate/", {"document": compiled}, format="json")
    assert response.status_code == 200, response.content


def test_rename_to_a_taken_name_changes_nothing(api, program_id, document):
    other = api.post("/api/programs/", {"name": "other", "document": document}, format="json")
    response = api.patch(f"/api/programs/{other.json()['id']}/", {"name": "qa"}, format="json")
    assert response.status_code == 400
    assert "already have a program named 'qa'" in response.json()["name"][0]
    assert api.get(f"/api/programs/{other.json()['id']}/").json()["name"] == "other"
