"""Every new user starts with the bundled model as its default provider.

Sign-up calls `services.give_starter_provider` itself; this hook covers the paths
that create users without going through a service: ``createsuperuser``, the admin's
"add user" page, ``create_user`` in a script or shell. The service is idempotent, so
a user reached by both gets one provider.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_save


def _on_user_saved(sender: Any, instance: Any, created: bool, raw: bool = False, **_: Any) -> None:
    if not created or raw:  # fixtures (loaddata) carry their own rows
        return
    from studio.accounts.services import give_starter_provider

    give_starter_provider(instance)


def connect() -> None:
    post_save.connect(
        _on_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="studio-starter-provider"
    )
