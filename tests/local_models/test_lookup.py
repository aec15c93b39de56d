"""local_models.get / serialize / deserialize: the same `Family` as every other family."""

from __future__ import annotations

import json

import pytest

from optimizer_core import local_models
from optimizer_core.local_models import LocalEmbeddingModel, LocalModelServer
from optimizer_core.saving import family, get_registered_object, safe_mode_scope
from optimizer_core.saving.object_registry import RefusedObjectError


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("LocalModelServer", LocalModelServer),
        ("local_model_server", LocalModelServer),
        ("LocalEmbeddingModel", LocalEmbeddingModel),
        ("local-embedding-model", LocalEmbeddingModel),
    ],
)
def test_get_by_name_builds_with_defaults_and_never_starts(name: str, cls: type) -> None:
    built = local_models.get(name)
    assert type(built) is cls
    assert local_models.get(built) is built
    if isinstance(built, LocalModelServer):
        assert not built.running


def test_a_config_round_trips() -> None:
    server = LocalModelServer(alias="tiny")
    config = json.loads(json.dumps(local_models.serialize(server)))
    again = local_models.get(config)
    assert type(again) is LocalModelServer and again.get_config() == server.get_config()


def test_the_language_model_needs_a_server_and_other_identifiers_are_refused() -> None:
    with pytest.raises(ValueError, match=r"LocalModelServer\(\)\.language_model\(\)"):
        local_models.get("local_language_model")
    with pytest.raises(ValueError, match="unknown local model 'nope'"):
        local_models.get("nope")
    with pytest.raises(TypeError, match="cannot turn 42 into a local model"):
        local_models.get(42)
    assert family("local model").kind == "local model"


def test_local_classes_stay_out_of_saved_documents() -> None:
    """The family's own table finds them; a document's registry lookup does not."""
    with safe_mode_scope(True), pytest.raises(RefusedObjectError):
        get_registered_object("optimizer_core.local_models.server.LocalModelServer")
