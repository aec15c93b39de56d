"""A run's life through the real path: services, the task body, litellm, a scripted server."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from optimizer_core.programs import Program
from studio.common import lifecycle
from studio.runs import services
from studio.runs.callbacks import CheckpointWriter
from studio.runs.exceptions import RunConfigError
from studio.runs.models import Run, RunEvent
from studio.runs.training import execute_run, train_claimed_run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db, pytest.mark.litellm]

# Evaluations repeat only above evaluation temperature 0 (the default runs one pass).
FIT = {"epochs": 2, "batch_size": 8, "evaluations": 2, "evaluation_temperature": 0.7, "seed": 0}


def start(user: Any, server: Any, *, fit: dict[str, Any] | None = None, **kwargs: Any) -> Run:
    return services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, server.base_url),
        compile_config=kwargs.pop("compile_config", COMPILE_CONFIG),
        fit_config=fit if fit is not None else FIT,
        **kwargs,
    )


def events(run: Run) -> list[RunEvent]:
    return list(RunEvent.objects.filter(run=run).order_by("seq"))


def kinds(run: Run) -> list[str]:
    return [e.kind for e in events(run)]


def assert_no_gap(run: Run) -> None:
    seqs = [e.seq for e in events(run)]
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_run_trains_to_success_and_reports_every_step(
    user, scripted_server, enqueued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = start(user, scripted_server)
    assert enqueued == [run.pk]
    assert run.state == Run.State.QUEUED

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    assert run.started_at and run.finished_at and run.attempts == 1
    assert len(run.before["runs"]) == 2 and len(run.after["runs"]) == 2
    assert run.after["summary"]["reward"]["mean"] > run.before["summary"]["reward"]["mean"]
    assert {"mean", "std"} <= set(run.after["summary"]["f1_score"])
    example = run.after["examples"][0]
    assert set(example) == {"input", "expected", "output", "reward", "feedback", "error", "trace"}
    [step] = example["trace"]  # one Generator: what it got and what it said
    assert step["inputs"] == example["input"] and step["outputs"] == example["output"]
    assert len(run.after["examples"]) == 8
    assert list(run.checkpoints.values_list("epoch", flat=True)) == [1, 2]
    assert run.current_epoch == 2
    assert run.usage["calls"] > 0 and run.usage["total_tokens"] > 0
    assert run.usage["failures"] == 0
    trained = Program.from_json(run.trained_document)
    assert trained.trainable_variables[0].get("examples")

    found = kinds(run)
    for kind in (
        "state",
        "train_begin",
        "batch",
        "optimizer",
        "epoch",
        "variables",
        "checkpoint",
        "evaluation",
        "evaluation_summary",
        "evaluation_examples",
        "usage",
        "train_end",
    ):
        assert kind in found, kind
    assert found.count("epoch") == 2
    assert found.count("batch") == 2 * 4  # 32 training rows / batch_size 8, two epochs
    states = [e.payload["state"] for e in events(run) if e.kind == "state"]
    assert states == ["queued", "running", "succeeded"]
    assert_no_gap(run)


def test_cancel_stops_a_running_run_at_the_next_batch(user, scripted_server, monkeypatch, settings):
    # Only the batch-end check acts here: the watcher that cancels at once (see
    # test_provider_faults) is slowed down out of the way.
    monkeypatch.setattr(lifecycle, "CANCEL_POLL_S", 3600.0)
    settings.STUDIO_RUN_HEARTBEAT_S = 3600.0
    run = start(user, scripted_server)
    assert services.claim_run(run.pk)
    run.refresh_from_db()
    services.cancel_run(run)

    async_to_sync(train_claimed_run)(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.CANCELLED
    assert run.finished_at is not None
    assert kinds(run).count("batch") == 1
    assert "cancel_requested" in kinds(run)
    assert not run.checkpoints.exists()  # the cancelled epoch was partial
    assert run.after is None
    assert_no_gap(run)


def test_cancelling_a_queued_run_means_it_never_trains(user, scripted_server):
    run = start(user, scripted_server)
    services.cancel_run(run)
    assert run.state == Run.State.CANCELLED
    execute_run(run.pk)
    assert scripted_server.stats.chat_requests == 0
    with pytest.raises(services.InvalidTransition):
        services.cancel_run(run)


def test_a_refused_key_fails_the_run_with_the_reason_and_keeps_its_events(user, scripted_server):
    scripted_server.fail_next(status=401, times=10_000)
    run = start(user, scripted_server)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert "AuthenticationError" in run.error
    error_events = [e for e in events(run) if e.kind == "error"]
    assert error_events and error_events[0].payload["type"] == "AuthenticationError"
    assert events(run)[-1].payload == {"state": "failed", "error": run.error}
    assert run.usage["failures"] > 0
    assert_no_gap(run)


def test_a_provider_rate_limiting_every_call_fails_the_run_after_the_retries(user, scripted_server):
    scripted_server.fail_next(status=429, times=10_000)
    run = start(user, scripted_server, fit={**FIT, "evaluations": 1})
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert "RateLimitError" in run.error and "in a row failed" in run.error
    assert run.usage["retries"] > 0


def test_a_provider_that_never_answers_in_time_fails_the_run(user, scripted_server):
    scripted_server.stall_next(2.0, times=10_000)
    run = services.start_run(
        owner=user,
        program_version=make_version(user),
        dataset=make_dataset(user),
        provider=make_provider(user, scripted_server.base_url, timeout=0.2, max_retries=0),
        compile_config=COMPILE_CONFIG,
        fit_config={**FIT, "evaluations": 1},
    )
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.FAILED
    assert "LanguageModelTimeout" in run.error, run.error
    assert "error" in kinds(run)


class WorkerKilled(BaseException):
    """Stands for the worker process dying: nothing in the service catches it."""


def test_a_run_whose_worker_died_resumes_from_its_last_checkpoint(
    user, scripted_server, monkeypatch, enqueued, django_capture_on_commit_callbacks
):
    run = start(user, scripted_server, fit={**FIT, "epochs": 3})
    original = CheckpointWriter.on_epoch_end

    async def dies_after_first_epoch(self, epoch, logs=None):
        await original(self, epoch, logs)
        if epoch == 0:
            raise WorkerKilled

    monkeypatch.setattr(CheckpointWriter, "on_epoch_end", dies_after_first_epoch)
    with pytest.raises(WorkerKilled):
        execute_run(run.pk)
    monkeypatch.setattr(CheckpointWriter, "on_epoch_end", original)
    run.refresh_from_db()
    assert run.state == Run.State.RUNNING
    assert list(run.checkpoints.values_list("epoch", flat=True)) == [1]

    # A fresh heartbeat keeps it; an old one gets it re-queued.
    assert services.sweep_stale_runs() == []
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    enqueued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_stale_runs() == [run.pk]
    assert enqueued == [run.pk]
    run.refresh_from_db()
    assert run.state == Run.State.QUEUED

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    assert run.attempts == 2
    assert list(run.checkpoints.values_list("epoch", flat=True)) == [1, 2, 3]
    resumed = [e for e in events(run) if e.kind == "resumed"]
    assert resumed and resumed[0].payload["from_epoch"] == 1
    begins = [e.payload["initial_epoch"] for e in events(run) if e.kind == "train_begin"]
    assert begins == [0, 1]
    assert sorted(e.payload["epoch"] for e in events(run) if e.kind == "epoch") == [0, 1, 2]
    before = [e for e in events(run) if e.kind == "evaluation" and e.payload["phase"] == "before"]
    assert len(before) == 2  # not evaluated again on resume
    assert_no_gap(run)


def test_a_fork_starts_from_the_chosen_checkpoint(user, scripted_server, enqueued):
    run = start(user, scripted_server)
    execute_run(run.pk)
    run.refresh_from_db()

    fork = services.fork_run(run=run, epoch=1, fit_config={"epochs": 3})
    assert fork.parent == run and fork.fork_epoch == 1
    assert fork.initial_document == run.checkpoints.get(epoch=1).document
    execute_run(fork.pk)

    fork.refresh_from_db()
    assert fork.state == Run.State.SUCCEEDED, fork.error
    assert list(fork.checkpoints.values_list("epoch", flat=True)) == [2, 3]
    assert [e.payload["initial_epoch"] for e in events(fork) if e.kind == "train_begin"] == [1]
    assert_no_gap(fork)

    with pytest.raises(RunConfigError) as missing:
        services.fork_run(run=run, epoch=7)
    assert "epoch" in missing.value.by_path()
    with pytest.raises(RunConfigError) as too_short:
        services.fork_run(run=run, epoch=2)
    assert "fit_config.epochs" in too_short.value.by_path()


@pytest.mark.parametrize(
    ("compile_config", "fit_config", "field", "words"),
    [
        ({**COMPILE_CONFIG, "reward": "exact_matsh"}, FIT, "compile_config.reward.name", "unknown"),
        ({**COMPILE_CONFIG, "metrics": ["nope"]}, FIT, "compile_config.metrics[0].name", "unknown"),
        (
            {
                **COMPILE_CONFIG,
                "optimizer": {"name": "random_few_shot", "params": {"nb_max_examples": -1}},
            },
            FIT,
            "compile_config.optimizer.params",
            "nb_max_examples",
        ),
        (
            {
                **COMPILE_CONFIG,
                "optimizer": {"name": "random_few_shot", "params": {"temperature": 1}},
            },
            FIT,
            "compile_config.optimizer.params",
            "temperature",
        ),
        (
            {**COMPILE_CONFIG, "optimizer": "gradient_descent"},
            FIT,
            "compile_config.optimizer.name",
            "unknown",
        ),
        ({"reward": "exact_match"}, FIT, "compile_config.optimizer", "required"),
        (COMPILE_CONFIG, {**FIT, "epochs": 0}, "fit_config.epochs", "[1, 1000]"),
        (COMPILE_CONFIG, {**FIT, "validation_split": 1.5}, "fit_config.validation_split", "[0, 1)"),
        (COMPILE_CONFIG, {**FIT, "evaluations": 500}, "fit_config.evaluations", "[1, 20]"),
        (
            COMPILE_CONFIG,
            {**FIT, "evaluation_temperature": 2.5},
            "fit_config.evaluation_temperature",
            "<= 2",
        ),
        (COMPILE_CONFIG, {**FIT, "learning_rate": 0.1}, "fit_config", "learning_rate"),
        (COMPILE_CONFIG, {**FIT, "early_stopping": 3}, "fit_config.early_stopping", "object"),
        (
            COMPILE_CONFIG,
            {**FIT, "early_stopping": {"patience": 2, "verbose": 1}},
            "fit_config.early_stopping",
            "verbose",
        ),
        (
            COMPILE_CONFIG,
            {**FIT, "early_stopping": {"patience": 0}},
            "fit_config.early_stopping.patience",
            ">= 1",
        ),
        (
            COMPILE_CONFIG,
            {**FIT, "early_stopping": {"patience": 1.5}},
            "fit_config.early_stopping.patience",
            "integer",
        ),
        (
            COMPILE_CONFIG,
            {**FIT, "early_stopping": {"patience": 1, "min_delta": -0.1}},
            "fit_config.early_stopping.min_delta",
            ">= 0",
        ),
        (
            COMPILE_CONFIG,
            {**FIT, "validation_split": 0.25, "early_stopping": {"monitor": "val_accuracy"}},
            "fit_config.early_stopping.monitor",
            "one of val_reward, val_f1_score, reward, f1_score",
        ),
        (
            COMPILE_CONFIG,
            {**FIT, "early_stopping": {"monitor": "val_reward"}},
            "fit_config.early_stopping.monitor",
            "validation_split",
        ),
    ],
)
def test_a_bad_configuration_is_refused_naming_the_field(
    user, compile_config, fit_config, field, words
):
    with pytest.raises(RunConfigError) as refused:
        services.start_run(
            owner=user,
            program_version=make_version(user),
            dataset=make_dataset(user),
            provider=make_provider(user, "http://provider.invalid/v1"),
            compile_config=compile_config,
            fit_config=fit_config,
        )
    messages = refused.value.by_path()
    assert list(messages) == [field]
    assert words in messages[field][0]
    assert not Run.objects.exists()


def test_another_users_dataset_is_not_found(user, other_user):
    with pytest.raises(RunConfigError) as refused:
        services.start_run(
            owner=user,
            program_version=make_version(user),
            dataset=make_dataset(other_user),
            provider=make_provider(user, "http://provider.invalid/v1"),
            compile_config=COMPILE_CONFIG,
            fit_config=FIT,
        )
    assert refused.value.by_path() == {"dataset": ["not found"]}


def test_an_unvalidated_dataset_or_an_embedding_provider_is_refused(user):
    dataset = make_dataset(user)
    dataset.status = "validating"
    dataset.save()
    kwargs = {
        "owner": user,
        "program_version": make_version(user),
        "compile_config": COMPILE_CONFIG,
        "fit_config": FIT,
    }
    provider = make_provider(user, "http://provider.invalid/v1")
    with pytest.raises(RunConfigError) as refused:
        services.start_run(dataset=dataset, provider=provider, **kwargs)
    assert list(refused.value.by_path()) == ["dataset"]
    provider.kind = "embedding"
    provider.save()
    with pytest.raises(RunConfigError) as refused:
        services.start_run(dataset=make_dataset(user), provider=provider, **kwargs)
    assert list(refused.value.by_path()) == ["provider"]


def test_cancel_during_the_first_evaluations_stops_before_any_training(
    user, settings, allow_outgoing
):
    from optimizer_core.testing.scripted_server import ScriptedServer
    from optimizer_core.testing.students import capitals_task

    settings.STUDIO_RUN_HEARTBEAT_S = 0.02
    _, _, student = capitals_task()
    with ScriptedServer(student.from_request, latency=0.05) as slow:
        allow_outgoing(slow)
        run = start(user, slow, fit={**FIT, "evaluations": 20, "batch_size": 2})
        assert services.claim_run(run.pk)
        run.refresh_from_db()
        services.cancel_run(run)
        async_to_sync(train_claimed_run)(run.pk)
    run.refresh_from_db()
    assert run.state == Run.State.CANCELLED
    assert "batch" not in kinds(run) and run.before is None
    assert_no_gap(run)


def test_the_sweep_command_requeues_stale_runs(user, scripted_server, enqueued):
    from io import StringIO

    from django.core.management import call_command

    run = start(user, scripted_server)
    assert services.claim_run(run.pk)
    out = StringIO()
    call_command("sweep_stale_runs", "--older-than", "3600", stdout=out)
    assert "re-queued 0 run(s)" in out.getvalue()
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    call_command("sweep_stale_runs", "--older-than", "60", stdout=out)
    assert f"re-queued 1 run(s): [{run.pk}]" in out.getvalue()
    run.refresh_from_db()
    assert run.state == Run.State.QUEUED and run.worker == ""


def test_an_omega_run_uses_the_owners_embedding_provider(user, scripted_server):
    from optimizer_core.testing.scripted_server import schema_filler
    from optimizer_core.testing.students import capitals_task
    from studio.providers.models import Provider

    _, _, student = capitals_task()

    def respond(request):
        """The student for the task; a (valid, dull) rewrite for OMEGA's mutations."""
        schema = request["response_format"]["json_schema"]["schema"]
        if set(schema.get("properties", {})) == {"answer"}:
            return student.from_request(request)
        return {**schema_filler(schema), "instructions": "Answer with the city name only."}

    scripted_server.responder = respond

    Provider.objects.create(
        owner=user, name="embeddings", kind=Provider.Kind.EMBEDDING, model="openai/embed",
        api_base=scripted_server.base_url, params={"max_retries": 1, "backoff_base": 0.01},
    )  # fmt: skip
    omega = {"name": "omega", "params": {"population_size": 4, "seed": 0}}
    run = start(
        user, scripted_server, compile_config={**COMPILE_CONFIG, "optimizer": omega},
        fit={**FIT, "validation_split": 0.25},
    )  # fmt: skip
    before = scripted_server.stats.embedding_requests

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    populations = [
        e.payload
        for e in events(run)
        if e.kind == "optimizer" and e.payload["event"] == "population"
    ]
    assert populations and all("population" in p for p in populations)
    assert scripted_server.stats.embedding_requests > before, "DNS embedded through the provider"
    assert_no_gap(run)


def test_models_are_set_by_the_studio_not_the_config(user):
    omega = {"name": "omega", "params": {"language_model": "openai/elsewhere"}}
    with pytest.raises(RunConfigError) as refused:
        services.start_run(
            owner=user, program_version=make_version(user), dataset=make_dataset(user),
            provider=make_provider(user, "http://provider.invalid/v1"),
            compile_config={**COMPILE_CONFIG, "optimizer": omega}, fit_config=FIT,
        )  # fmt: skip
    assert list(refused.value.by_path()) == ["compile_config.optimizer.params.language_model"]


def test_early_stopping_ends_a_run_whose_validation_reward_does_not_improve(user, scripted_server):
    # No rise of a reward in [0, 1] beats a min_delta of 1: the second epoch does not improve,
    # and with patience 1 the run stops there, three epochs before its last.
    early = {"patience": 1, "min_delta": 1.0}
    fit = {"epochs": 5, "batch_size": 8, "validation_split": 0.25, "seed": 0}
    run = start(user, scripted_server, fit={**fit, "early_stopping": early})
    assert run.fit_config["early_stopping"] == {
        "patience": 1,
        "min_delta": 1.0,
        "monitor": "val_reward",  # the default with validation rows
        "restore_best_variables": False,
    }

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    assert list(run.checkpoints.values_list("epoch", flat=True)) == [1, 2]
    assert kinds(run).count("epoch") == 2
    [stopped] = [e.payload for e in events(run) if e.kind == "early_stopped"]
    assert stopped["epoch"] == 1 and stopped["epochs"] == 5
    assert stopped["monitor"] == "val_reward" and stopped["patience"] == 1
    assert stopped["best_epoch"] == 0
    assert run.after is not None  # evaluated after training, as a full run is
    assert_no_gap(run)


def test_a_run_without_early_stopping_trains_every_epoch_and_says_nothing_of_it(
    user, scripted_server
):
    fit = {"epochs": 3, "batch_size": 8, "validation_split": 0.25, "seed": 0}
    run = start(user, scripted_server, fit=fit)
    assert run.fit_config["early_stopping"] is None

    execute_run(run.pk)

    run.refresh_from_db()
    assert run.state == Run.State.SUCCEEDED, run.error
    assert kinds(run).count("epoch") == 3
    assert "early_stopped" not in kinds(run)
