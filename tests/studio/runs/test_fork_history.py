"""A fork's inherited history: its ancestors' epochs up to the fork point, on the run detail."""

from __future__ import annotations

from typing import Any

import pytest

from studio.runs.fork_history import inherited_epochs
from studio.runs.models import Checkpoint, Run
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_provider, make_version

pytestmark = pytest.mark.django_db


def make_run(user: Any, *, parent: Run | None = None, fork_epoch: int | None = None) -> Run:
    if parent is not None:
        version, dataset, provider = parent.program_version, parent.dataset, parent.provider
    else:
        version, dataset = make_version(user), make_dataset(user)
        provider = make_provider(user, "http://provider.invalid/v1")
    return Run.objects.create(
        owner=user,
        program_version=version,
        dataset=dataset,
        provider=provider,
        compile_config=COMPILE_CONFIG,
        fit_config={"epochs": 4},
        parent=parent,
        fork_epoch=fork_epoch,
        state=Run.State.SUCCEEDED,
    )


def checkpoint(run: Run, epoch: int, reward: float) -> None:
    Checkpoint.objects.create(run=run, epoch=epoch, document={}, logs={"reward": reward})


def test_a_run_that_is_not_a_fork_inherits_nothing(user):
    run = make_run(user)
    checkpoint(run, 1, 0.1)
    assert inherited_epochs(run) == []


def test_a_fork_inherits_its_parents_epochs_up_to_the_fork_point(api, user):
    parent = make_run(user)
    for epoch, reward in ((1, 0.1), (2, 0.2), (3, 0.3)):
        checkpoint(parent, epoch, reward)
    fork = make_run(user, parent=parent, fork_epoch=2)
    checkpoint(fork, 3, 0.5)  # its own epoch 2: not inherited

    detail = api.get(f"/api/runs/{fork.pk}/").json()

    assert detail["parent"] == parent.pk and detail["fork_epoch"] == 2
    assert detail["inherited_epochs"] == [
        {"epoch": 0, "run": parent.pk, "logs": {"reward": 0.1}},
        {"epoch": 1, "run": parent.pk, "logs": {"reward": 0.2}},
    ]
    assert api.get(f"/api/runs/{parent.pk}/").json()["inherited_epochs"] == []


def test_a_fork_of_a_fork_reaches_back_to_the_first_run(user):
    root = make_run(user)
    for epoch in (1, 2, 3):
        checkpoint(root, epoch, epoch / 10)
    middle = make_run(user, parent=root, fork_epoch=1)
    for epoch in (2, 3):
        checkpoint(middle, epoch, epoch)
    leaf = make_run(user, parent=middle, fork_epoch=3)

    assert inherited_epochs(leaf) == [
        {"epoch": 0, "run": root.pk, "logs": {"reward": 0.1}},
        {"epoch": 1, "run": middle.pk, "logs": {"reward": 2}},
        {"epoch": 2, "run": middle.pk, "logs": {"reward": 3}},
    ]


def test_a_deleted_parent_leaves_no_history(user):
    parent = make_run(user)
    checkpoint(parent, 1, 0.1)
    fork = make_run(user, parent=parent, fork_epoch=1)
    parent.delete()
    fork.refresh_from_db()
    assert inherited_epochs(fork) == []
