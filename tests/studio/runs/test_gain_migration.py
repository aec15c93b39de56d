"""The migration that stores each ended run's verdict, run forward on a populated database:
a run stored before `Run.gain` existed shows, in the runs list, the verdict its per-row
rewards give; a run without them shows none."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from studio.runs.models import Run
from studio.runs.significance import paired_gain
from tests.studio.runs.factories import COMPILE_CONFIG, make_dataset, make_version

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("runs", "0007_run_owner_created")]


def migrate(targets: list[tuple[str, str]]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def test_runs_from_before_the_column_get_the_verdict_of_their_rewards(user):
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    version, dataset = make_version(user), make_dataset(user)
    before = [0.0] * 30 + [1.0] * 10
    after = [1.0] * 40
    old = migrate(BEFORE)
    try:
        OldRun = old.get_model("runs", "Run")
        for before_rewards, after_rewards in ((before, after), (None, None)):
            OldRun.objects.create(
                owner_id=user.pk,
                program_version_id=version.pk,
                dataset_id=dataset.pk,
                compile_config=COMPILE_CONFIG,
                fit_config={"epochs": 1},
                state="succeeded",
                before_rewards=before_rewards,
                after_rewards=after_rewards,
            )
    finally:
        migrate(latest)
    with_rewards, without = Run.objects.order_by("pk")
    assert with_rewards.gain == paired_gain(before, after)
    assert with_rewards.gain["verdict"] == "significant gain" and with_rewards.gain["n"] == 40
    assert without.gain is None
