"""GET /api/runs/throughput/: what the run form's duration, tokens and cost come from."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from studio.providers.models import Provider
from studio.runs.models import Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db

URL = "/api/runs/throughput/"


def finished_run(
    owner: Any,
    provider: Provider,
    *,
    calls: int,
    seconds: float,
    tokens: int = 0,
    cost: float = 0.0,
    version: Any = None,
    state: str = Run.State.SUCCEEDED,
    ended_ago_s: float = 0.0,
    compile_config: dict[str, Any] | None = None,
) -> Run:
    end = timezone.now() - timedelta(seconds=ended_ago_s)
    return Run.objects.create(
        owner=owner,
        program_version=version or make_version(owner),
        dataset=make_dataset(owner),
        provider=provider,
        compile_config=compile_config or COMPILE_CONFIG,
        fit_config={"epochs": 1},
        state=state,
        usage={"calls": calls, "total_tokens": tokens, "cost": cost},
        started_at=end - timedelta(seconds=seconds),
        finished_at=end,
    )


def test_two_finished_runs_give_their_median_pace_tokens_and_cost(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    finished_run(user, provider, calls=200, seconds=100, tokens=20_000, cost=0.02)  # 2 calls/s
    finished_run(user, provider, calls=300, seconds=100, tokens=60_000, cost=0.12)  # 3 calls/s

    figures = api.get(URL, {"provider": provider.pk}).json()

    assert figures["runs"] == 2
    assert figures["calls_per_second"] == pytest.approx(2.5)
    assert figures["tokens_per_call"] == pytest.approx(150.0)  # median of 100 and 200
    assert figures["tokens_from"] == "provider"
    assert figures["prices"] == "priced"
    assert figures["cost_per_token"] == pytest.approx(1.5e-6)  # median of 1e-6 and 2e-6


def test_only_the_last_five_finished_runs_count(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    for ago in range(5):
        finished_run(user, provider, calls=100, seconds=100, ended_ago_s=ago)  # 1 call/s
    finished_run(user, provider, calls=900, seconds=100, ended_ago_s=3600)  # older: 9 calls/s
    finished_run(user, provider, calls=900, seconds=100, state=Run.State.FAILED)

    figures = api.get(URL, {"provider": provider.pk}).json()

    assert figures["runs"] == 5
    assert figures["calls_per_second"] == pytest.approx(1.0)


def test_another_users_runs_never_count(api, user, other_user, other_api):
    provider = make_provider(user, "http://provider.invalid/v1")
    theirs = make_provider(other_user, "http://provider.invalid/v1")
    finished_run(other_user, theirs, calls=500, seconds=10, tokens=5000, cost=1.0)

    figures = api.get(URL, {"provider": provider.pk}).json()
    assert figures["runs"] == 0 and figures["calls_per_second"] is None
    # Nor may one ask about another user's provider.
    assert api.get(URL, {"provider": theirs.pk}).status_code == 404
    assert other_api.get(URL, {"provider": provider.pk}).status_code == 404


def test_a_provider_without_finished_runs_gives_no_figures(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    Run.objects.create(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=provider,
        compile_config=COMPILE_CONFIG,
        fit_config={},
        state=Run.State.RUNNING,
        usage={"calls": 50},
        started_at=timezone.now(),
    )

    figures = api.get(URL, {"provider": provider.pk}).json()

    assert figures == {
        "provider": provider.pk,
        "local": False,
        "optimizer": None,
        "runs": 0,
        "calls_per_second": None,
        "pace_from": None,
        "tokens_per_call": None,
        "tokens_from": None,
        "tokens_runs": 0,
        "cost_per_token": None,
        "prices": "unknown",
        "cost_runs": 0,
    }


def test_tokens_per_call_come_from_the_same_program_first(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    mine = make_version(user)
    finished_run(user, provider, calls=10, seconds=10, tokens=3000, version=mine)  # 300 / call
    finished_run(user, provider, calls=10, seconds=10, tokens=500)  # another program: 50 / call

    same = api.get(URL, {"provider": provider.pk, "program": mine.program_id}).json()
    assert same["tokens_from"] == "program" and same["tokens_per_call"] == pytest.approx(300)
    assert same["tokens_runs"] == 1

    new_program = make_version(user)
    other = api.get(URL, {"provider": provider.pk, "program": new_program.program_id}).json()
    assert other["tokens_from"] == "provider" and other["tokens_per_call"] == pytest.approx(175)


def test_runs_litellm_could_not_price_leave_the_cost_unknown(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    finished_run(user, provider, calls=10, seconds=10, tokens=1000, cost=0.0)

    figures = api.get(URL, {"provider": provider.pk}).json()
    assert figures["tokens_per_call"] == pytest.approx(100)
    assert figures["prices"] == "unknown" and figures["cost_per_token"] is None


def test_the_bundled_model_costs_nothing(api, user):
    local = Provider.objects.create(owner=user, name="local", model="local/smollm2")
    finished_run(user, local, calls=40, seconds=20, tokens=8000)

    figures = api.get(URL, {"provider": local.pk}).json()
    assert figures["local"] is True
    assert figures["calls_per_second"] == pytest.approx(2.0)
    assert figures["prices"] == "free" and figures["cost_per_token"] == 0


def test_the_provider_is_required(api):
    assert "provider" in api.get(URL).json()
    assert api.get(URL, {"provider": "x"}).status_code == 400


def test_a_malformed_program_is_a_400_naming_it(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    response = api.get(URL, {"provider": provider.pk, "program": "1; drop table"})
    assert response.status_code == 400
    assert "program" in response.json() and "integer" in str(response.json()["program"])


def test_the_optimizers_own_runs_give_the_pace_and_tokens_first(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    omega = {**COMPILE_CONFIG, "optimizer": {"name": "omega", "params": {}}}
    finished_run(user, provider, calls=100, seconds=100, tokens=50_000, compile_config=omega)
    finished_run(user, provider, calls=400, seconds=100, tokens=40_000)  # RandomFewShot

    with_omega = api.get(URL, {"provider": provider.pk, "optimizer": "OMEGA"}).json()
    assert with_omega["optimizer"] == "OMEGA" and with_omega["pace_from"] == "optimizer"
    assert with_omega["runs"] == 1 and with_omega["calls_per_second"] == pytest.approx(1.0)
    assert with_omega["tokens_from"] == "optimizer"
    assert with_omega["tokens_per_call"] == pytest.approx(500)

    # Without OMEGA runs measured, the provider's runs in general, said so.
    Run.objects.filter(compile_config=omega).delete()
    fallback = api.get(URL, {"provider": provider.pk, "optimizer": "omega"}).json()
    assert fallback["optimizer"] == "OMEGA" and fallback["pace_from"] == "provider"
    assert fallback["calls_per_second"] == pytest.approx(4.0)
    assert fallback["tokens_from"] == "provider"


def test_the_programs_runs_with_the_optimizer_come_before_either_alone(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    mine = make_version(user)
    omega = {**COMPILE_CONFIG, "optimizer": "OMEGA"}
    finished_run(
        user, provider, calls=10, seconds=10, tokens=9000, version=mine, compile_config=omega
    )
    finished_run(user, provider, calls=10, seconds=10, tokens=1000, version=mine)
    finished_run(user, provider, calls=10, seconds=10, tokens=3000, compile_config=omega)

    asked = {"provider": provider.pk, "program": mine.program_id, "optimizer": "OMEGA"}
    figures = api.get(URL, asked).json()
    assert figures["tokens_from"] == "program_optimizer"
    assert figures["tokens_per_call"] == pytest.approx(900)


def test_an_unknown_optimizer_is_a_400_naming_it(api, user):
    provider = make_provider(user, "http://provider.invalid/v1")
    response = api.get(URL, {"provider": provider.pk, "optimizer": "os.system"})
    assert response.status_code == 400
    assert "os.system" in str(response.json()["optimizer"])
    assert "OMEGA" in str(response.json()["optimizer"])
