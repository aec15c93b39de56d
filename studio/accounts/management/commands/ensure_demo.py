"""``manage.py ensure_demo``: the demo user, with a program and a dataset ready to train."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from studio.accounts import services


class Command(BaseCommand):
    help = (
        "Create the demo user (STUDIO_DEMO_USER / STUDIO_DEMO_PASSWORD, default "
        "demo / demo-password-change-me) with a default provider, a demo program and "
        "a demo dataset. Safe to run again."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        demo = services.ensure_demo()
        verb = "created" if demo.created else "updated"
        self.stdout.write(
            self.style.SUCCESS(
                f"demo user {demo.user.username!r} {verb}: program {demo.program.name!r} "
                f"(id {demo.program.pk}), dataset {demo.dataset.name!r} (id {demo.dataset.pk}, "
                f"{demo.dataset.status}), provider {demo.provider.name!r} ({demo.provider.model})"
            )
        )
