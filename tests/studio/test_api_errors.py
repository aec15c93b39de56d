"""Hostile requests answer 4xx in JSON, never 500 or a debug page.

Nesting bounds on JSON bodies and program documents, integer overflows and
other users' ids in list filters, odd import bodies, the error format the schema
documents, and the JSON error pages of /api/ paths.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.urls import path as url_path
from rest_framework.test import APIClient

from studio import urls as studio_urls
from studio.common.jsondepth import MAX_DEPTH, TooDeep, exceeds_depth, loads
from tests.studio.runs.factories import make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db

REPO_ROOT = Path(__file__).resolve().parents[2]


def nested(depth: int, leaf: Any = 1) -> Any:
    """A value `depth` levels deep, alternating objects and arrays."""
    value = leaf
    for level in range(depth):
        value = {"x": value} if level % 2 else [value]
    return value


def deep_text(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def client(user) -> APIClient:
    # Exceptions become responses, as they would for a real client.
    api = APIClient(raise_request_exception=False)
    api.force_authenticate(user)
    return api


# --------------------------------------------------------------------------- JSON depth


@pytest.mark.parametrize("depth", [1, MAX_DEPTH])
def test_values_within_the_limit_load(depth):
    assert loads(json.dumps(nested(depth))) == nested(depth)
    assert not exceeds_depth(nested(depth))


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 10_000, 100_000])
def test_deeper_values_are_refused_without_recursion(depth):
    with pytest.raises(TooDeep, match=f"deeper than {MAX_DEPTH} levels"):
        loads(deep_text(depth))
    if depth <= 900:  # parseable by Python: checked without recursing
        assert exceeds_depth(json.loads(deep_text(depth)))


JSON_ENDPOINTS = [
    ("post", "/api/programs/"),
    ("post", "/api/programs/validate/"),
    ("post", "/api/programs/import/"),
    ("post", "/api/runs/"),
    ("post", "/api/providers/"),
    ("post", "/api/datasets/builtin/"),
    ("post", "/api/auth/token/"),
]


@pytest.mark.parametrize(("method", "path"), JSON_ENDPOINTS)
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 10_000, 100_000])
def test_a_json_body_nested_too_deep_answers_400_naming_the_limit(client, method, path, depth):
    response = getattr(client, method)(path, deep_text(depth), content_type="application/json")
    assert response.status_code == 400, response.content
    assert f"deeper than {MAX_DEPTH} levels" in response.content.decode()


def test_a_json_body_within_the_limit_is_parsed(client):
    body = {"document": nested(MAX_DEPTH - 1)}
    response = client.post("/api/programs/validate/", body, format="json")
    assert response.status_code == 400  # not a program, but read and answered
    assert "errors" in response.json()


@pytest.fixture
def deep_document(user) -> dict[str, Any]:
    """A real program document with a value 900 levels deep inside a module's config."""
    document = copy.deepcopy(make_version(user).document)
    document["program"]["modules"][-1]["module"]["config"]["extra"] = nested(900)
    return document


@pytest.mark.parametrize(
    "path", ["/api/programs/", "/api/programs/validate/", "/api/programs/import/", "try"]
)
def test_a_program_document_900_deep_answers_400(client, user, deep_document, path):
    if path == "try":
        path = f"/api/programs/{make_version(user).program_id}/try/"
    body = {"name": "deep", "document": deep_document, "input": {"query": "?"}}
    response = client.post(path, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["message"].endswith(
        f"deeper than {MAX_DEPTH} levels (the limit)"
    )


def test_a_deep_document_in_a_form_field_or_an_import_file_answers_400(client, deep_document):
    text = json.dumps(deep_document)
    response = client.post("/api/programs/", {"name": "deep", "document": text}, format="multipart")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["path"] == "document"
    upload = io.BytesIO(text.encode())
    upload.name = "deep.json"
    response = client.post("/api/programs/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400, response.content
    assert "deeper than" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize("body", ['"a string"', "[1, 2]", "42", "null", "true"])
def test_an_import_body_that_is_not_an_object_answers_400(client, body):
    response = client.post("/api/programs/import/", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert response.json() == {"errors": [{"path": "", "message": "expected a JSON object"}]}


# --------------------------------------------------------------------------- run filters


def test_another_users_id_in_a_run_filter_answers_as_a_missing_one(client, other_user):
    theirs = {
        "dataset": make_dataset(other_user).pk,
        "program_version": make_version(other_user).pk,
        "provider": make_provider(other_user, "http://provider.invalid").pk,
    }
    for name, pk in theirs.items():
        other = client.get(f"/api/runs/?{name}={pk}")
        missing = client.get(f"/api/runs/?{name}=987654")
        assert other.status_code == missing.status_code == 400, (name, other.content)
        assert other.json() == missing.json()


def test_own_ids_in_run_filters_are_accepted(client, user):
    version = make_version(user)
    query = (
        f"dataset={make_dataset(user).pk}&program_version={version.pk}"
        f"&provider={make_provider(user, 'http://provider.invalid').pk}&program={version.program_id}"
    )
    response = client.get(f"/api/runs/?{query}")
    assert response.status_code == 200, response.content
    assert response.json()["count"] == 0


@pytest.mark.parametrize("name", ["program", "parent", "dataset", "provider", "program_version"])
@pytest.mark.parametrize("value", ["1.18e+29", "1" + "0" * 30, "-1", "1.5", "x", "1e400", "NaN"])
def test_overflowing_or_malformed_ids_in_run_filters_answer_400(client, name, value):
    response = client.get("/api/runs/", {name: value})
    assert response.status_code == 400, (name, value, response.content)
    assert name in response.json()


@pytest.mark.parametrize("path", ["/api/providers/", "/api/datasets/", "/api/programs/"])
def test_a_nul_character_in_a_list_filter_answers_400_as_an_object(client, path):
    response = client.get(path, {"search": "a\x00b"})
    assert response.status_code == 400, response.content
    assert response.json() == {"detail": "Null characters are not allowed."}


# --------------------------------------------------------------------------- error format


def test_a_refused_program_create_has_the_documented_error_format(client):
    response = client.post("/api/programs/", {"document": {}}, format="json")
    assert response.status_code == 400
    assert response.json() == {"errors": [{"path": "name", "message": "This field is required."}]}
    schema = client.get("/api/schema/?format=json").json()
    documented = schema["paths"]["/api/programs/"]["post"]["responses"]["400"]
    ref = documented["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert set(schema["components"]["schemas"][ref]["properties"]) == {"errors"}


def test_nested_request_errors_flatten_to_paths():
    from studio.common.errors import flatten

    detail = {"a": {"b": ["bad"]}, "non_field_errors": ["whole"], "c": [{"d": ["x"]}, {}]}
    assert flatten(detail) == [
        {"path": "a.b", "message": "bad"},
        {"path": "", "message": "whole"},
        {"path": "c[0].d", "message": "x"},
    ]


# --------------------------------------------------------------------------- error pages


def _boom(request):
    raise RuntimeError("the secret detail")


# The studio's URLs and error handlers, plus two views that crash.
urlpatterns = [url_path("api/boom/", _boom), url_path("boom/", _boom), *studio_urls.urlpatterns]
handler404 = studio_urls.handler404
handler500 = studio_urls.handler500


def test_errors_of_api_paths_are_json_and_pages_keep_html(client, settings):
    settings.ROOT_URLCONF = "tests.studio.test_api_errors"
    crash = client.get("/api/boom/")
    assert crash.status_code == 500
    assert crash.json() == {"detail": "server error"}
    assert b"secret" not in crash.content
    assert client.get("/boom/").headers["Content-Type"].startswith("text/html")
    settings.ROOT_URLCONF = "studio.urls"
    missing = client.get("/api/no/such/thing/")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "not found"}


def test_a_csrf_refusal_on_the_api_is_json(user):
    response = APIClient(enforce_csrf_checks=True).post(
        "/api/auth/login/", {"username": "ada", "password": "x"}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["detail"].startswith("CSRF failed")


def test_the_embedded_default_runs_without_debug():
    code = (
        "import os; os.environ.pop('DJANGO_DEBUG', None);"
        "from studio.settings import local; print(local.DEBUG)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert out.stdout.strip() == "False"
