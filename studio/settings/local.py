"""The embedded default: one machine, nothing else running (SQLite, no broker server)."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "local-development-only-not-secret")
os.environ.setdefault("DJANGO_DEBUG", "true")

from studio.settings.base import *  # noqa: F403
