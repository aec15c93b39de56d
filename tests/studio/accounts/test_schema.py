"""The OpenAPI schema: served, valid, and carrying the stable operation ids."""

from __future__ import annotations

import pytest
import yaml
from drf_spectacular.validation import validate_schema

pytestmark = pytest.mark.django_db

OPERATION_IDS = {
    "auth_login", "auth_logout", "auth_me", "auth_csrf", "auth_token", "auth_signup",
    "auth_config", "data_models_list", "data_models_create", "data_models_retrieve",
    "data_models_update", "data_models_partial_update", "data_models_destroy",
    "programs_list", "programs_create", "programs_retrieve", "programs_update",
    "programs_partial_update", "programs_destroy", "programs_validate",
    "programs_versions_list", "programs_versions_create", "programs_versions_retrieve",
    "programs_versions_export", "programs_diff", "programs_import",
    "providers_list", "providers_create", "providers_retrieve", "providers_update",
    "providers_partial_update", "providers_destroy", "providers_catalogue", "providers_set_default",
    "datasets_list", "datasets_create", "datasets_retrieve", "datasets_update",
    "datasets_partial_update", "datasets_destroy", "datasets_errors", "datasets_preview",
    "datasets_revalidate", "datasets_catalogue", "datasets_builtin_create",
}  # fmt: skip


def test_schema_is_valid_and_names_every_operation(api):
    response = api.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    validate_schema(schema)
    found = {
        operation["operationId"]
        for path in schema["paths"].values()
        for operation in path.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    assert found >= OPERATION_IDS, sorted(OPERATION_IDS - found)
    upload = schema["paths"]["/api/datasets/"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in upload
    provider = schema["components"]["schemas"]["Provider"]["properties"]
    assert provider["has_api_key"]["readOnly"] is True
