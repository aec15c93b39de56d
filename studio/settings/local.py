"""The embedded default: one machine, nothing else running (SQLite, no broker server).

Debug stays off (base reads ``DJANGO_DEBUG``, default false): the embedded studio is
what people run, and a debug page would show settings and code to any visitor.
Set ``DJANGO_DEBUG=true`` yourself when developing.
"""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "local-development-only-not-secret")

from studio.settings.base import *  # noqa: F403
