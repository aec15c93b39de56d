"""Every operation of the OpenAPI schema, fuzzed: no 5xx, and every response as documented.

Schemathesis generates requests from the schema (valid ones, then invalid ones)
and sends them through Django's WSGI handler, signed in with the API token of a
user who owns a program, a dataset, a provider and a run with events and a
checkpoint (small ids, which the generated path ids often hit). Each response is
checked: not a server error, a status the operation documents, and content type
and body as the schema says. The seed is fixed and the number of cases bounded, so a run is
reproducible and takes a minute or two; operations that delete run last.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import got_request_exception, request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from rest_framework.utils import json
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from optimizer_core.language_models.fake import FakeLanguageModel
from studio import celery_app
from studio.accounts.models import SavedDataModel
from studio.datasets.models import Dataset
from studio.evaluations.models import Evaluation
from studio.programs.models import Program
from studio.providers.models import Provider
from studio.runs.events import RUN_EVENTS
from studio.runs.models import Checkpoint, Run
from studio.scorers.models import Scorer, ScorerVersion
from tests.studio.runs.factories import (
    COMPILE_CONFIG,
    make_dataset,
    make_provider,
    make_version,
    program_document,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SEED = 20240917
CASES = {"owned": 10, "positive": 10, "negative": 10}
"""Cases per operation: valid requests on the user's own objects (path ids set), valid
requests with generated ids, invalid requests. 46 operations: about a minute on two cores."""

# Every answer is one the operation documents (its 400/404/409/413 included:
# studio.common.error_responses), in the documented shape and content type; 5xx never.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    content_type_conformance,
]


@pytest.fixture
def owned(owner) -> dict[str, int]:
    """Path ids of the owner's objects, by the collection a path starts with."""
    return {
        "programs": Program.objects.filter(owner=owner).order_by("pk").first().pk,
        "datasets": Dataset.objects.get(owner=owner).pk,
        "providers": Provider.objects.get(owner=owner).pk,
        "runs": Run.objects.get(owner=owner).pk,
        "data-models": SavedDataModel.objects.get(owner=owner).pk,
        "evaluations": Evaluation.objects.get(owner=owner).pk,
        "scorers": Scorer.objects.get(owner=owner).pk,
    }


@pytest.fixture
def owner(db, django_user_model) -> Any:
    user = django_user_model.objects.create_user("fuzz", "fuzz@example.com", "fuzz passphrase")
    version = make_version(user)
    make_version(user, name="second")
    dataset = make_dataset(user)
    provider = make_provider(user, "http://provider.invalid/v1")
    provider.is_default = True
    provider.save(update_fields=["is_default"])
    run = Run.objects.create(
        owner=user,
        program_version=version,
        dataset=dataset,
        provider=provider,
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 1},
    )
    for batch in range(3):
        RUN_EVENTS.record(run.pk, "batch", {"batch": batch, "reward": 0.5})
    Checkpoint.objects.create(run=run, epoch=1, document=program_document(), logs={"reward": 1})
    SavedDataModel.objects.create(
        owner=user,
        name="Query",
        schema={"type": "object", "properties": {"query": {"type": "string"}}},
    )
    scorer = Scorer.objects.create(owner=user, name="same")
    ScorerVersion.objects.create(
        scorer=scorer, number=1, source="def reward(y_true, y_pred):\n    return 1.0\n"
    )
    Evaluation.objects.create(
        owner=user,
        candidate_version=version,
        candidate_provider=provider,
        baseline_version=version,
        baseline_provider=provider,
        dataset=dataset,
        reward={"name": "exact_match", "params": {}},
    )
    return user


@pytest.fixture
def wsgi_app(monkeypatch) -> Iterator[WSGIHandler]:
    """Django's WSGI handler, in the test's transaction, answering 500 for a crash."""
    from studio.providers import services as provider_services

    # `try` runs programs: on a scripted model, never a network call.
    monkeypatch.setattr(
        provider_services, "build_language_model", lambda provider, **kw: FakeLanguageModel()
    )
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True  # revalidation runs in the request
    # As Django's test client does: a request must not close the test's connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield WSGIHandler()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
        celery_app.conf.task_always_eager = eager


@pytest.fixture
def crashes() -> Iterator[list[str]]:
    """Tracebacks of the exceptions that reached Django's handler500."""
    found: list[str] = []

    def record(sender: Any, request: Any = None, **kwargs: Any) -> None:
        found.append(f"{getattr(request, 'path', '?')}\n{traceback.format_exc()}")

    got_request_exception.connect(record, weak=False)
    yield found
    got_request_exception.disconnect(record)


def _operations(schema: Any) -> list[Any]:
    operations = [result.ok() for result in schema.get_all_operations()]
    # Deleting the user's objects first would leave the other operations only 404s.
    return sorted(operations, key=lambda op: op.method.upper() == "DELETE")


def _strategy(operation: Any, mode: str, owned: dict[str, int]) -> Any:
    if mode == "negative":
        return operation.as_strategy(generation_mode=GenerationMode.NEGATIVE)
    path = {}
    if mode == "owned":
        names = {p.name for p in operation.path_parameters}
        if "id" in names:
            path["id"] = owned[operation.path.split("/")[2]]
        if "number" in names:
            path["number"] = 1
    return operation.as_strategy(generation_mode=GenerationMode.POSITIVE, path_parameters=path)


def _fuzz(operation: Any, mode: str, app: Any, headers: dict[str, str], owned: Any) -> int:
    sent = 0

    @seed(SEED)
    @settings(
        max_examples=CASES[mode],
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(case=_strategy(operation, mode, owned))
    def run(case: Any) -> None:
        nonlocal sent
        sent += 1
        response = case.call(app=app, headers=headers)
        case.validate_response(response, checks=CHECKS, headers=headers)

    try:
        run()
    except Unsatisfiable:  # nothing to make invalid: no parameters, no body
        assert mode == "negative" and sent == 0
    return sent


def test_every_operation_answers_as_documented_and_never_5xx(
    owner, owned, wsgi_app, crashes
) -> None:
    raw = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    schema = schemathesis.openapi.from_dict(raw)
    headers = {"Authorization": f"Token {Token.objects.create(user=owner).key}"}
    operations = _operations(schema)
    assert len(operations) >= 40, "the schema lost operations"

    failures: list[str] = []
    cases = 0
    started = time.monotonic()
    for operation in operations:
        for mode in CASES:
            try:
                cases += _fuzz(operation, mode, wsgi_app, headers, owned)
            except (Exception, BaseExceptionGroup) as error:  # one does not hide the others
                failures.append(f"{operation.label} ({mode}):\n{error}")
    elapsed = time.monotonic() - started
    print(f"fuzzed {len(operations)} operations, {cases} cases, {elapsed:.0f} s, seed {SEED}")
    assert not crashes, "\n\n".join(crashes[:3])
    assert not failures, "\n\n".join(failures)
