"""Task routing: training on its own queue, so short work never waits behind a run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from studio import celery_app
from studio.datasets.tasks import validate_dataset
from studio.runs.tasks import run_training, sweep_stale_runs


@pytest.fixture
def memory_broker() -> Iterator[object]:
    """A connection to an in-memory broker, with the app's real queues declared on it."""
    with celery_app.connection_for_write(url="memory://") as connection:
        channel = connection.default_channel
        for queue in celery_app.amqp.queues.values():
            queue(channel).declare()
        yield connection


def drain(connection: object, name: str) -> list[str]:
    queue = celery_app.amqp.queues[name](connection.default_channel)  # type: ignore[attr-defined]
    names = []
    while (message := queue.get(no_ack=True)) is not None:
        names.append(message.headers["task"])
    return names


def test_the_queues_are_named_as_the_workers_expect() -> None:
    assert celery_app.conf.task_default_queue == "short"
    assert set(celery_app.amqp.queues) == {"short", "training"}


def test_training_goes_to_the_training_queue_and_the_rest_to_short(memory_broker) -> None:
    run_training.apply_async((1,), connection=memory_broker)
    validate_dataset.apply_async((2,), connection=memory_broker)
    sweep_stale_runs.apply_async(connection=memory_broker)

    assert drain(memory_broker, "training") == ["runs.run_training"]
    assert drain(memory_broker, "short") == ["datasets.validate_dataset", "runs.sweep_stale_runs"]


def test_the_routes_name_every_task_by_its_registered_name() -> None:
    route = celery_app.amqp.router.route
    assert route({}, run_training.name)["queue"].name == "training"
    assert route({}, validate_dataset.name)["queue"].name == "short"
