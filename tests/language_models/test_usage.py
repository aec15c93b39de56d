"""Usage: exact aggregates, bounded records, listeners, snapshots."""

from __future__ import annotations

import json

import pytest

from optimizer_core.language_models import CallRecord, Usage


def record(**overrides: object) -> CallRecord:
    fields: dict[str, object] = {
        "model": "m",
        "started_at": 0.0,
        "latency_s": 0.5,
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "cost": 0.25,
    }
    fields.update(overrides)
    return CallRecord(**fields)  # type: ignore[arg-type]


def test_aggregates_stay_exact_when_records_are_dropped() -> None:
    usage = Usage(max_records=3)
    for _ in range(10):
        usage.record(record())
    usage.record(record(ok=False, error="boom", attempts=3))
    usage.record(record(cached=True, attempts=0, prompt_tokens=0, completion_tokens=0, cost=0.0))
    assert len(usage.records) == 3
    assert usage.calls == 12
    assert usage.failures == 1
    assert usage.retries == 2
    assert usage.cached_calls == 1
    assert usage.prompt_tokens == 110
    assert usage.completion_tokens == 55
    assert usage.total_tokens == 165
    assert usage.cost == pytest.approx(2.75)
    assert usage.total_latency_s == pytest.approx(6.0)


def test_snapshot_is_json_and_reset_zeroes_it() -> None:
    usage = Usage()
    usage.record(record())
    snapshot = usage.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot
    assert snapshot["calls"] == 1 and snapshot["mean_latency_s"] == 0.5
    usage.reset()
    assert usage.calls == 0 and usage.records == [] and usage.cost == 0.0


def test_in_flight_tracks_the_peak() -> None:
    usage = Usage()
    usage.request_started()
    usage.request_started()
    usage.request_finished()
    usage.request_started()
    usage.request_finished()
    usage.request_finished()
    assert usage.in_flight == 0
    assert usage.max_in_flight == 2


def test_remove_listener_ignores_unknown_functions() -> None:
    usage = Usage()
    usage.remove_listener(print)
    seen: list[CallRecord] = []
    usage.add_listener(seen.append)
    usage.record(record())
    assert seen[0].to_dict()["prompt_tokens"] == 10


def test_max_records_is_validated() -> None:
    with pytest.raises(ValueError, match="`max_records`"):
        Usage(max_records=0)


def test_queue_and_provider_time_are_summed_and_averaged() -> None:
    usage = Usage()
    usage.record(record(queue_ms=300.0, provider_ms=100.0))
    usage.record(record(queue_ms=0.0, provider_ms=120.0))
    assert usage.total_queue_ms == 300.0 and usage.total_provider_ms == 220.0
    snapshot = usage.snapshot()
    assert snapshot["mean_queue_ms"] == 150.0 and snapshot["mean_provider_ms"] == 110.0
    assert usage.records[0].to_dict()["queue_ms"] == 300.0


def test_the_concurrency_bound_and_its_history_are_kept_and_survive_a_reset() -> None:
    usage = Usage()
    assert usage.snapshot()["concurrency_bound"] is None
    usage.concurrency_changed(16, maximum=16, reason="start")
    usage.concurrency_changed(8, maximum=16, reason="rate limited")
    snapshot = usage.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot
    assert (snapshot["concurrency_bound"], snapshot["max_concurrency"]) == (8, 16)
    assert [(c["bound"], c["reason"]) for c in snapshot["concurrency_history"]] == [
        (16, "start"),
        (8, "rate limited"),
    ]
    usage.reset()
    assert usage.concurrency_bound == 8
    assert [(c["bound"], c["reason"]) for c in usage.concurrency_history] == [(8, "reset")]


def test_combine_adds_several_models_and_a_stored_total() -> None:
    task, judge = Usage(), Usage()
    task.concurrency_changed(4, maximum=8, reason="start")
    task.record(record(latency_s=1.0, queue_ms=10.0))
    task.record(record(ok=False, error="x", attempts=2, latency_s=3.0, queue_ms=30.0))
    judge.record(record(cached=True, attempts=0, prompt_tokens=0, completion_tokens=0, cost=0.0))
    stored = {"calls": 5, "retries": 1, "cost": 1.0, "total_latency_s": 4.0, "max_in_flight": 9}

    total = Usage.combine(task.snapshot(), judge.snapshot(), stored)

    assert json.loads(json.dumps(total)) == total
    assert (total["calls"], total["failures"], total["retries"], total["cached_calls"]) == (
        8,
        1,
        2,
        1,
    )
    assert total["total_tokens"] == 30 and total["cost"] == pytest.approx(1.5)
    assert total["mean_latency_s"] == pytest.approx((1.0 + 3.0 + 0.5 + 4.0) / 8)
    assert total["mean_queue_ms"] == pytest.approx(40.0 / 8)
    assert total["max_in_flight"] == 9  # the largest, not a sum
    # The bound shown is the first snapshot's: the task model's.
    assert (total["concurrency_bound"], total["max_concurrency"]) == (4, 8)
    assert [change["bound"] for change in total["concurrency_history"]] == [4]


def test_combine_of_a_stored_total_alone_keeps_its_bound_and_of_nothing_is_zero() -> None:
    stored = {"calls": 2, "concurrency_bound": 3, "max_concurrency": 6, "concurrency_history": []}
    assert Usage.combine(stored)["concurrency_bound"] == 3
    empty = Usage.combine()
    assert empty["calls"] == 0 and empty["mean_latency_s"] == 0.0
    assert empty["concurrency_bound"] is None and empty["concurrency_history"] == []


def test_diff_is_what_was_spent_between_two_snapshots() -> None:
    usage = Usage()
    usage.record(record(latency_s=2.0))
    before = usage.snapshot()
    usage.record(record(latency_s=1.0, prompt_tokens=7, completion_tokens=1, cost=0.5))
    usage.record(record(ok=False, error="x", latency_s=3.0))

    spent = Usage.diff(usage.snapshot(), before)

    assert (spent["calls"], spent["failures"]) == (2, 1)
    assert (spent["prompt_tokens"], spent["completion_tokens"], spent["total_tokens"]) == (
        17,
        6,
        23,
    )
    assert spent["cost"] == pytest.approx(0.75)
    assert spent["mean_latency_s"] == pytest.approx(2.0)  # over the two calls in between
    assert Usage.diff(before, before)["calls"] == 0
    # A diff and the total before it combine back into the total.
    assert Usage.combine(spent, before)["calls"] == usage.snapshot()["calls"]
