"""What a run stores loads back: the provider's model is the run's, not the program's."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from studio.programs.documents import load_program, storable_document
from studio.programs.exceptions import DocumentInvalid
from studio.runs.models import Checkpoint, Run
from studio.runs.training import execute_run
from tests.studio.runs.factories import program_document
from tests.studio.runs.test_training import start

LOCAL_SERVER_MODEL = {
    "module": "optimizer_core.local_models",
    "class_name": "LocalLanguageModel",
    "registered_name": "optimizer_core.local_models>LocalLanguageModel",
    "config": {},
}


def generator_models(document: dict[str, Any]) -> list[Any]:
    return [
        entry["module"]["config"]["language_model"]
        for entry in document["program"]["modules"]
        if "language_model" in entry["module"]["config"]
    ]


def test_the_bundled_server_in_a_trained_document_is_put_back_to_the_versions_model() -> None:
    source = program_document()
    trained = copy.deepcopy(source)
    for entry in trained["program"]["modules"]:
        if "language_model" in entry["module"]["config"]:
            entry["module"]["config"]["language_model"] = LOCAL_SERVER_MODEL
    trained["compile_config"] = {"optimizer": LOCAL_SERVER_MODEL}

    with pytest.raises(DocumentInvalid):  # safe mode keeps a local server out of documents
        load_program(trained)
    stored = storable_document(trained, source)

    assert generator_models(stored) == generator_models(source)
    assert stored["compile_config"] == source.get("compile_config")
    assert stored["variables"] == trained["variables"]
    load_program(stored)


@pytest.mark.django_db
@pytest.mark.litellm
def test_a_runs_checkpoints_and_trained_document_load_back(user, scripted_server) -> None:
    run = start(user, scripted_server)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error

    version_models = generator_models(run.program_version.document)
    documents = [run.trained_document, *(c.document for c in Checkpoint.objects.filter(run=run))]
    assert len(documents) >= 2
    for document in documents:
        assert generator_models(document) == version_models  # not the provider's address
        load_program(document)
