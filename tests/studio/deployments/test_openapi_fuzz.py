"""The deployments operations, fuzzed on the user's own deployment and batch job.

The project-wide fuzz test (`tests/studio/test_openapi_fuzz.py`) sends every
operation generated path values, which for deployments (addressed by name) are
only ever 404s. This one fills the path with a deployment and a finished batch
job the user owns, so valid and invalid bodies reach predict, switch, rollback,
batches and the downloads. Same checks: no 5xx, every documented response as
documented.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from rest_framework.utils import json
from schemathesis.generation import GenerationMode

from studio.deployments import services
from studio.deployments.batch import execute_batch, start_batch
from tests.studio.deployments.factories import make_dataset, make_provider, make_run
from tests.studio.test_openapi_fuzz import CHECKS, SEED, crashes, wsgi_app  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600), pytest.mark.django_db]

CASES = 15


@pytest.fixture
def owned(user) -> dict[str, Any]:
    provider = make_provider(user, "http://provider.invalid/v1")
    deployment = services.deploy(owner=user, name="fuzz", run=make_run(user, provider))
    services.switch(deployment, run=make_run(user, provider))
    job = start_batch(deployment, dataset=make_dataset(user, rows=3))
    execute_batch(job.pk)
    return {"name": "fuzz", "deployment_name": "fuzz", "batch_id": job.pk}


def test_deployment_operations_answer_as_documented_on_owned_objects(user, owned, request) -> None:
    app = request.getfixturevalue("wsgi_app")
    crashed = request.getfixturevalue("crashes")
    raw = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    schema = schemathesis.openapi.from_dict(raw)
    headers = {"Authorization": f"Token {Token.objects.create(user=user).key}"}
    operations = [
        result.ok()
        for result in schema.get_all_operations()
        if result.ok().path.startswith("/api/deployments/")
    ]
    # Deleting the deployment first would leave the others only 404s.
    operations.sort(key=lambda op: op.method.upper() == "DELETE")
    assert len(operations) >= 12
    failures: list[str] = []
    for operation in operations:
        names = {p.name for p in operation.path_parameters}
        path = {key: value for key, value in owned.items() if key in names}
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @seed(SEED)
            @settings(
                max_examples=CASES,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
                print_blob=False,
            )
            @given(case=operation.as_strategy(generation_mode=mode, path_parameters=path))
            def run(case: Any) -> None:
                response = case.call(app=app, headers=headers)
                case.validate_response(response, checks=CHECKS, headers=headers)

            try:
                run()
            except Unsatisfiable:
                pass
            except Exception as error:
                failures.append(f"{operation.label} ({mode.value}):\n{error}")
    assert not crashed, "\n\n".join(crashed[:3])
    assert not failures, "\n\n".join(failures)
