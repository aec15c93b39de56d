"""`manage.py sweep_stale_runs`: re-queue running runs whose worker stopped sending heartbeats."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from studio.runs.services import sweep_stale_runs


class Command(BaseCommand):
    help = "Re-queue running runs whose heartbeat is older than the stale threshold."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than", type=float, default=None, help="seconds (default: the setting)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seconds = options["older_than"]
        requeued = sweep_stale_runs(
            older_than=timedelta(seconds=seconds) if seconds is not None else None
        )
        self.stdout.write(f"re-queued {len(requeued)} run(s): {requeued}")
