"""Budgets you can trust, and the owner's response cache (issue #14 item 2).

The scripted server counts the requests that reach it: a run capped at N calls
sends at most N and ends ``budget_spent`` with its best program and events kept;
a fork of a run with the cache on sends fewer requests than its parent.
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync

from studio.runs import services
from studio.runs.models import Run, RunEvent
from studio.runs.training import train_claimed_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

FIT = {"epochs": 2, "batch_size": 8, "seed": 0}


def run_to_end(run: Run) -> Run:
    assert services.claim_run(run.pk)
    async_to_sync(train_claimed_run)(run.pk)
    run.refresh_from_db()
    return run


def start(user: Any, provider: Any, **fit: Any) -> Run:
    return services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=provider,
        compile_config=COMPILE_CONFIG,
        fit_config={**FIT, **fit},
    )


def test_a_cap_of_n_calls_makes_at_most_n_provider_calls(user, scripted_server) -> None:
    provider = make_provider(user, scripted_server.base_url)
    cap = 30  # 8 test rows before, 8 held back for after: 14 for training, less than an epoch
    run = run_to_end(start(user, provider, max_calls=cap, cache=False))
    assert scripted_server.stats.chat_requests <= cap
    assert run.state == Run.State.BUDGET_SPENT, run.error
    assert "budget spent" in run.error
    assert run.trained_document is not None  # the best program so far
    assert run.after is not None  # evaluated with the share held back for it
    assert run.usage["budget"]["max_calls"] == cap
    assert run.usage["budget"]["calls"] <= cap
    kinds = list(RunEvent.objects.filter(run=run).values_list("kind", flat=True))
    assert "budget_spent" in kinds and "train_begin" in kinds


def test_a_run_under_its_caps_succeeds(user, scripted_server) -> None:
    provider = make_provider(user, scripted_server.base_url)
    run = run_to_end(start(user, provider, max_calls=100_000, cache=False))
    assert run.state == Run.State.SUCCEEDED, run.error
    assert run.usage["budget"]["exhausted"] is None


def test_a_fork_with_the_cache_on_makes_fewer_provider_calls(user, scripted_server) -> None:
    provider = make_provider(user, scripted_server.base_url)
    parent = run_to_end(start(user, provider))
    assert parent.state == Run.State.SUCCEEDED, parent.error
    parent_requests = scripted_server.stats.chat_requests
    scripted_server.stats.reset()
    fork = services.fork_run(run=parent, epoch=1)
    fork = run_to_end(fork)
    assert fork.state == Run.State.SUCCEEDED, fork.error
    assert scripted_server.stats.chat_requests < parent_requests
    assert fork.usage["cached_calls"] > 0
    assert fork.usage["calls"] - fork.usage["cached_calls"] == scripted_server.stats.chat_requests


def test_the_cache_can_be_turned_off(user, scripted_server) -> None:
    provider = make_provider(user, scripted_server.base_url)
    first = run_to_end(start(user, provider, cache=False))
    again = run_to_end(start(user, provider, cache=False))
    assert first.usage["cached_calls"] == again.usage["cached_calls"] == 0


def test_usage_has_queueing_provider_time_and_the_bound(user, scripted_server) -> None:
    provider = make_provider(user, scripted_server.base_url)
    run = run_to_end(start(user, provider, cache=False))
    usage = run.usage
    assert usage["mean_provider_ms"] > 0 and usage["mean_queue_ms"] >= 0
    assert usage["concurrency_bound"] >= 1 and usage["concurrency_history"]
