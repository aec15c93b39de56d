"""Hostile program documents against every studio entry point (issue #9, item 1).

The corpus (`tests.saving.hostile`) names code where a document names classes:
walks through a module's imports to ``os.system``, builtins, dunders, pickle,
registered classes in the wrong place, schemas with class hints. Every entry
point must answer 400 naming the field path and the name, store nothing, and
leave no marker file: validate, create, new version, import (JSON and file),
try, run start (a hostile stored version, and hostile reward / metric /
optimizer configs), and the worker (`training.execute_run`, what the Celery
task calls), for a hostile stored version, fork document or run config.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from studio.programs.documents import DocumentInvalid, load_program
from studio.programs.models import Program, ProgramVersion
from studio.runs import compare
from studio.runs.models import Run
from studio.runs.training import execute_run
from tests.saving.hostile import CORPUS, IDS, Hostile, base_document
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider

pytestmark = pytest.mark.django_db

DEAD_PROVIDER = "http://provider.invalid/v1"  # never reached (.invalid never resolves)
FIT = {"epochs": 1, "batch_size": 8, "evaluations": 1, "seed": 0}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return base_document()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "pwned"


def errors_of(response: Any) -> list[tuple[str, str]]:
    """``(path, message)`` pairs of a 400, in the ``{"errors": [...]}`` or ``{field: ...}`` shape."""
    assert response.status_code == 400, response.content
    body = response.json()
    if isinstance(body.get("errors"), list):
        return [(str(e.get("path")), str(e.get("message"))) for e in body["errors"]]
    pairs = []
    for key, value in body.items():
        messages = value if isinstance(value, list) else [value]
        pairs.extend((str(key), str(message)) for message in messages)
    return pairs


def assert_names(errors: list[tuple[str, str]], entry: Hostile, *, prefix: str = "") -> None:
    """The refusal names the hostile field's path and the name it gave."""
    wanted = f"{prefix}{entry.path}"
    located = [(path, message) for path, message in errors if path.startswith(wanted)]
    assert located, (wanted, errors)
    assert any(entry.name in message for _, message in located), (entry.name, errors)


def stored_counts() -> tuple[int, int]:
    return Program.objects.count(), ProgramVersion.objects.count()


# ----------------------------------------------------------------- the program API


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_validate_refuses(api, document, entry: Hostile, marker: Path) -> None:
    hostile = entry.apply(document, str(marker))
    response = api.post("/api/programs/validate/", {"document": hostile}, format="json")
    assert_names(errors_of(response), entry)
    assert not marker.exists()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_create_refuses(api, document, entry: Hostile, marker: Path) -> None:
    hostile = entry.apply(document, str(marker))
    response = api.post("/api/programs/", {"name": "x", "document": hostile}, format="json")
    assert_names(errors_of(response), entry)
    assert stored_counts() == (0, 0)
    assert not marker.exists()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_new_version_refuses(api, document, entry: Hostile, marker: Path) -> None:
    created = api.post("/api/programs/", {"name": "ok", "document": document}, format="json")
    assert created.status_code == 201, created.content
    hostile = entry.apply(document, str(marker))
    response = api.post(
        f"/api/programs/{created.json()['id']}/versions/", {"document": hostile}, format="json"
    )
    assert_names(errors_of(response), entry)
    assert stored_counts() == (1, 1)
    assert not marker.exists()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_import_refuses(api, document, entry: Hostile, marker: Path) -> None:
    hostile = entry.apply(document, str(marker))
    response = api.post("/api/programs/import/", hostile, format="json")
    assert_names(errors_of(response), entry)
    upload = SimpleUploadedFile("p.json", json.dumps(hostile).encode(), "application/json")
    response = api.post("/api/programs/import/", {"file": upload}, format="multipart")
    assert_names(errors_of(response), entry)
    assert stored_counts() == (0, 0)
    assert not marker.exists()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_try_refuses(api, user, document, entry: Hostile, marker: Path) -> None:
    program = Program.objects.create(owner=user, name="p")
    ProgramVersion.objects.create(program=program, number=1, document=document)
    provider = make_provider(user, DEAD_PROVIDER)
    hostile = entry.apply(document, str(marker))
    response = api.post(
        f"/api/programs/{program.pk}/try/",
        {"input": {"query": "?"}, "document": hostile, "provider": provider.pk},
        format="json",
    )
    assert_names(errors_of(response), entry)
    assert not marker.exists()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_try_refuses_a_hostile_stored_version(api, user, document, entry, marker) -> None:
    """A version stored before the fix (straight into the table) is refused when tried."""
    program = Program.objects.create(owner=user, name="p")
    ProgramVersion.objects.create(
        program=program, number=1, document=entry.apply(document, str(marker))
    )
    provider = make_provider(user, DEAD_PROVIDER)
    response = api.post(
        f"/api/programs/{program.pk}/try/",
        {"input": {"query": "?"}, "provider": provider.pk},
        format="json",
    )
    assert_names(errors_of(response), entry)
    assert not marker.exists()


# ----------------------------------------------------------------- runs


def _stored_version(user: Any, document: dict[str, Any]) -> ProgramVersion:
    program = Program.objects.create(owner=user, name=f"p{Program.objects.count()}")
    return ProgramVersion.objects.create(program=program, number=1, document=document)


def _run_body(user: Any, version: ProgramVersion, compile_config: Any) -> dict[str, Any]:
    return {
        "name": "hostile",
        "program_version": version.pk,
        "dataset": make_dataset(user).pk,
        "provider": make_provider(user, DEAD_PROVIDER).pk,
        "compile_config": compile_config,
        "fit_config": FIT,
    }


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_run_start_refuses_a_hostile_stored_version(api, user, document, entry, marker) -> None:
    version = _stored_version(user, entry.apply(document, str(marker)))
    response = api.post("/api/runs/", _run_body(user, version, COMPILE_CONFIG), format="json")
    assert_names(errors_of(response), entry, prefix="program_version.document.")
    assert Run.objects.count() == 0
    assert not marker.exists()


def run_config(entry: Hostile, marker: str) -> tuple[dict[str, Any], str]:
    """A run's compile config carrying the entry's payload, and the field a refusal names.

    Serialised objects reach a run config only as parameters: a `MeanRewardWrapper`'s
    (or `MeanMetricWrapper`'s) ``fn``, a `ProgramAsJudge`'s ``program``; an optimizer
    can only be named.
    """
    payload = entry.payload(marker)
    config = json.loads(json.dumps(COMPILE_CONFIG))
    if entry.slot in ("reward", "reward_fn"):
        config["reward"] = {"name": "mean_reward_wrapper", "params": {"fn": payload}}
        return config, "compile_config.reward.params"
    if entry.slot in ("module", "language_model"):
        config["reward"] = {"name": "program_as_judge", "params": {"program": payload}}
        return config, "compile_config.reward.params"
    if entry.slot == "metric":
        config["metrics"] = [{"name": "mean_metric_wrapper", "params": {"fn": payload}}]
        return config, "compile_config.metrics[0].params"
    config["optimizer"] = {"name": entry.name, "params": {}}
    return config, "compile_config.optimizer.name"


RUN_CONFIG_CORPUS = [entry for entry in CORPUS if entry.slot != "data_model"]
RUN_CONFIG_IDS = [entry.id for entry in RUN_CONFIG_CORPUS]


@pytest.mark.parametrize("entry", RUN_CONFIG_CORPUS, ids=RUN_CONFIG_IDS)
def test_run_start_refuses_a_hostile_run_config(api, user, entry: Hostile, marker) -> None:
    from tests.studio.runs.factories import make_version

    config, field = run_config(entry, str(marker))
    response = api.post("/api/runs/", _run_body(user, make_version(user), config), format="json")
    errors = errors_of(response)
    assert any(path.startswith(field) for path, _ in errors), (field, errors)
    assert Run.objects.count() == 0
    assert not marker.exists()


def _queued_run(user: Any, version: ProgramVersion, **fields: Any) -> Run:
    return Run.objects.create(
        owner=user,
        name="stored before the fix",
        program_version=version,
        dataset=make_dataset(user),
        provider=make_provider(user, DEAD_PROVIDER),
        compile_config=fields.pop("compile_config", COMPILE_CONFIG),
        fit_config=FIT,
        **fields,
    )


# The worker rebuilds only the program part of a stored document: its compile config
# comes from the run (checked below), the document's own is never deserialised.
WORKER_CORPUS = [e for e in CORPUS if e.slot in ("module", "language_model", "data_model")]
WORKER_IDS = [entry.id for entry in WORKER_CORPUS]


@pytest.mark.parametrize("entry", WORKER_CORPUS, ids=WORKER_IDS)
def test_worker_refuses_a_hostile_stored_version(user, document, entry, marker) -> None:
    run = _queued_run(user, _stored_version(user, entry.apply(document, str(marker))))
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert "DocumentInvalid" in run.error and entry.path in run.error and entry.name in run.error
    assert not marker.exists()


@pytest.mark.parametrize("entry", WORKER_CORPUS, ids=WORKER_IDS)
def test_worker_refuses_a_hostile_fork_document(user, document, entry, marker) -> None:
    run = _queued_run(
        user,
        _stored_version(user, document),
        initial_document=entry.apply(document, str(marker)),
    )
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.FAILED and entry.name in run.error
    assert not marker.exists()


@pytest.mark.parametrize("entry", RUN_CONFIG_CORPUS, ids=RUN_CONFIG_IDS)
def test_worker_refuses_a_hostile_stored_run_config(user, document, entry, marker) -> None:
    config, _ = run_config(entry, str(marker))
    run = _queued_run(user, _stored_version(user, document), compile_config=config)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert not marker.exists()


@pytest.mark.parametrize("entry", WORKER_CORPUS, ids=WORKER_IDS)
def test_compare_refuses_a_hostile_trained_document(user, document, entry, marker) -> None:
    run = _queued_run(
        user,
        _stored_version(user, document),
        state=Run.State.SUCCEEDED,
        trained_document=entry.apply(document, str(marker)),
    )
    with pytest.raises(DocumentInvalid, match=entry.path.replace("[", r"\[").replace("]", r"\]")):
        compare.trained_variables(run)
    assert not marker.exists()


@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_the_one_loader_refuses(document, entry: Hostile, marker: Path) -> None:
    with pytest.raises(DocumentInvalid) as caught:
        load_program(entry.apply(document, str(marker)))
    paths = [error.path for error in caught.value.errors]
    assert any(path.startswith(entry.path) for path in paths), paths
    assert not marker.exists()


def test_the_base_document_is_accepted_everywhere(api, user, document) -> None:
    """The corpus changes one place of a document every entry point accepts."""
    assert api.post("/api/programs/validate/", {"document": document}, format="json").json()[
        "valid"
    ]
    version = _stored_version(user, document)
    response = api.post("/api/runs/", _run_body(user, version, COMPILE_CONFIG), format="json")
    assert response.status_code == 201, response.content
    assert load_program(document).compiled


def test_the_studio_never_turns_safe_mode_off_or_loads_documents_elsewhere() -> None:
    root = Path(__file__).resolve().parents[3] / "studio"
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert "safe_mode=False" not in text and "safe_mode_scope(False)" not in text, path
        if path.name != "documents.py" or path.parent.name != "programs":
            # Calls, not text: the prompt export hands the user a snippet (a string) that
            # loads the program on their own machine; the studio itself never does.
            assert not _loads_documents(text), path


def _loads_documents(source: str) -> list[str]:
    """The document-loading calls in ``source``: ``x.from_json(...)``, ``Program.load(...)``."""
    calls = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr == "from_json" or (
                node.func.attr == "load" and isinstance(owner, ast.Name) and owner.id == "Program"
            ):
                calls.append(ast.unparse(node.func))
    return calls


def test_a_document_loading_call_is_found_and_a_string_naming_one_is_not() -> None:
    assert _loads_documents("program = oc.Program.from_json(data)") == ["oc.Program.from_json"]
    assert _loads_documents("Program.load(path)") == ["Program.load"]
    assert _loads_documents('SNIPPET = "program = Program.from_json(data)"') == []
