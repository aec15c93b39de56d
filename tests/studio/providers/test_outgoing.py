"""The outgoing-request policy at every entry point: providers' test, try, a run, predict, a judge.

Each case points a provider somewhere the policy refuses (loopback by address and by
name, a name that resolves to loopback, one that turns to loopback between the check and
the connection, IPv6 loopback, the metadata address, a redirect to loopback, the
studio's own port). Every refusal is a 400 naming the policy (or, for a run, a failure
naming it), and the stand-in behind the refused address gets no request: its own log
says so. An allowed private host is reached.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from optimizer_core.testing.dns import resolving
from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from studio.deployments.models import Deployment
from studio.providers.models import Provider
from studio.runs.models import Run
from studio.runs.training import execute_run
from tests.studio.deployments.factories import make_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

POLICY = "refused by the outgoing-request policy"
PUBLIC = "93.184.215.14"  # checked, never connected to
PARAMS = {"max_retries": 1, "backoff_base": 0.01, "timeout": 5}
JUDGE = {
    **COMPILE_CONFIG,
    "reward": {"name": "lm_as_judge", "params": {}},
}


@pytest.fixture
def target() -> Iterator[ScriptedServer]:
    """The internal service a user would like to reach: it must see nothing."""
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request) as server:
        yield server


@pytest.fixture
def relay(settings) -> Iterator[ScriptedServer]:
    """A server the administrator allowed, which redirects every request elsewhere."""
    with ScriptedServer() as server:
        settings.STUDIO_ALLOWED_OUTGOING = [f"127.0.0.1:{server.port}"]
        yield server


# case -> how to point at the target: a base URL, with the names that resolve meanwhile
CASES = {
    "loopback address": "http://127.0.0.1:{port}/v1",
    "loopback name": "http://localhost:{port}/v1",
    "name resolving to loopback": "http://internal.test:{port}/v1",
    "name turning to loopback": "http://rebind.test:{port}/v1",
    "ipv6 loopback": "http://[::1]:{port}/v1",
    "ipv4 in ipv6": "http://[::ffff:127.0.0.1]:{port}/v1",
    "metadata address": "http://169.254.169.254/latest/v1",
    "redirect to loopback": "relay",
    "the studio's own port": "own",
}
NAMES = {"internal.test": "127.0.0.1", "rebind.test": [PUBLIC, "127.0.0.1"]}


def point(case: str, target: ScriptedServer, request: pytest.FixtureRequest, settings) -> str:
    base = CASES[case]
    if base == "relay":
        relay = request.getfixturevalue("relay")
        relay.redirect_next(f"{target.base_url}/chat/completions", times=1000)
        return relay.base_url
    if base == "own":
        settings.STUDIO_ALLOWED_OUTGOING = ["127.0.0.0/8"]  # loopback allowed...
        settings.STUDIO_PORT = target.port  # ...but this is the studio's own port
        return target.base_url
    return base.format(port=target.port)


def provider(owner: Any, api_base: str, **fields: Any) -> Provider:
    """Stored as it was before the policy (the API refuses to save it now)."""
    return Provider.objects.create(
        owner=owner, name="internal", model="openai/scripted", api_base=api_base,
        params=PARAMS, is_default=True, **fields,
    )  # fmt: skip


def assert_refused(response: Any, target: ScriptedServer) -> None:
    assert response.status_code == 400, response.content
    assert POLICY in response.content.decode()
    assert target.stats.chat_requests == 0, "the refused address was reached"


@pytest.fixture(params=sorted(CASES))
def refused_base(request, target, settings) -> Iterator[str]:
    with resolving(NAMES):
        yield point(request.param, target, request, settings)


def test_saving_a_provider_that_points_at_a_refused_address_says_what_to_allow(api, target):
    response = api.post(
        "/api/providers/",
        {"name": "internal", "model": "openai/scripted", "api_base": target.base_url},
        format="json",
    )
    assert response.status_code == 400
    [message] = response.json()["api_base"]
    assert POLICY in message and "loopback" in message
    assert f"add 127.0.0.1:{target.port} to STUDIO_ALLOWED_OUTGOING" in message
    local = {"name": "bundled", "model": "local/smollm2", "api_base": "https://example.com/v1"}
    response = api.post("/api/providers/", local, format="json")
    assert response.status_code == 400 and "takes no api_base" in response.json()["api_base"][0]


def test_the_connection_test(api, user, target, refused_base):
    stored = provider(user, refused_base)
    assert_refused(api.post(f"/api/providers/{stored.pk}/test/"), target)


def test_try(api, user, target, refused_base):
    provider(user, refused_base)
    version = make_version(user)
    body = {"input": {"query": "What is the capital of France?"}}
    assert_refused(
        api.post(f"/api/programs/{version.program_id}/try/", body, format="json"), target
    )


def test_predict(api, user, target, refused_base):
    run = make_run(user, provider(user, refused_base))
    Deployment.objects.all().delete()
    created = api.post("/api/deployments/", {"name": "capitals", "run": run.pk}, format="json")
    assert created.status_code == 201, created.content
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    body = {"input": {"query": "What is the capital of France?"}}
    assert_refused(script.post("/api/deployments/capitals/predict/", body, format="json"), target)


@pytest.mark.parametrize("compile_config", [COMPILE_CONFIG, JUDGE], ids=["run", "judge"])
def test_a_run_and_its_judge(api, user, target, refused_base, compile_config, enqueued_runs):
    body = {
        "program_version": make_version(user).pk,
        "dataset": make_dataset(user).pk,
        "provider": provider(user, refused_base).pk,
        "compile_config": compile_config,
        "fit_config": {"epochs": 1, "batch_size": 8},
    }
    response = api.post("/api/runs/", body, format="json")
    if response.status_code == 201:  # checked before the call: only a connection can tell
        execute_run(response.json()["id"])
        run = Run.objects.get(pk=response.json()["id"])
        assert run.state == Run.State.FAILED and POLICY in run.error, run.error
        assert target.stats.chat_requests == 0
    else:
        assert_refused(response, target)


@pytest.fixture
def enqueued_runs(monkeypatch) -> list[int]:
    from studio.runs import tasks

    calls: list[int] = []
    monkeypatch.setattr(tasks.run_training, "delay", calls.append)
    return calls


def test_an_allowed_private_host_is_reached(api, user, settings):
    settings.STUDIO_ALLOWED_OUTGOING = ["vllm.lan"]
    with ScriptedServer() as lan, resolving({"vllm.lan": "127.0.0.1"}):
        created = api.post(
            "/api/providers/",
            {"name": "lan", "model": "openai/scripted",
             "api_base": f"http://vllm.lan:{lan.port}/v1", "params": PARAMS},
            format="json",
        )  # fmt: skip
        assert created.status_code == 201, created.content
        response = api.post(f"/api/providers/{created.json()['id']}/test/")
        assert response.status_code == 200 and response.json()["ok"] is True, response.content
        assert lan.stats.chat_requests == 1
