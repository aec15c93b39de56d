"""The evaluation task: on the "training" queue (two passes over a split may be long)."""

from __future__ import annotations

from studio import celery_app
from studio.evaluations.services import RUN_EVALUATION_TASK
from studio.evaluations.tasks import run_evaluation


def test_an_evaluation_goes_to_the_training_queue_under_its_registered_name() -> None:
    assert run_evaluation.name == RUN_EVALUATION_TASK
    assert celery_app.tasks[RUN_EVALUATION_TASK] is run_evaluation._get_current_object()
    assert celery_app.amqp.router.route({}, RUN_EVALUATION_TASK)["queue"].name == "training"
