"""The Celery application; tasks live in each app's ``tasks.py``, sent with `enqueue`.

A task is thin: it takes ids and calls its app's services. Services in turn
queue tasks (a started run, a re-queued stale one, an upload to validate), so
they name the task instead of importing its module, which would be an import
cycle (services -> tasks -> services); ``scripts/check_import_cycles.py`` sees
every import, so `enqueue` is the one place a task is reached by name.
"""

import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def enqueue(name: str, *args: Any) -> None:
    """Queue the task registered as ``name`` with ``args`` (ids), as its ``delay`` would.

    A process that has not imported the apps' ``tasks`` modules yet (the web
    process) finds them through Celery's own autodiscovery first, so the task's
    options, its route (``CELERY_TASK_ROUTES``) and ``task_always_eager`` apply
    just as for ``task.delay(*args)``. Call it from ``transaction.on_commit`` so
    a worker never reads an uncommitted row.

    Raises:
        KeyError: no installed app defines a task of that name.
    """
    if name not in app.tasks:
        app.autodiscover_tasks(force=True)
    app.tasks[name].delay(*args)
