"""Scaled-out deployment: PostgreSQL, Redis broker and channel layer, separate workers.

Requires DJANGO_SECRET_KEY, DATABASE_URL, CELERY_BROKER_URL, CHANNEL_REDIS_URL and
STUDIO_ENCRYPTION_KEY in the environment.
"""

from studio.settings.base import *  # noqa: F403
from studio.settings.base import env

DEBUG = False
STUDIO_ENCRYPTION_KEY = env("STUDIO_ENCRYPTION_KEY")
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
# Accounts are made by staff (admin, createsuperuser) unless STUDIO_OPEN_REGISTRATION
# says otherwise; a demo password is never shown.
STUDIO_OPEN_REGISTRATION = env.bool("STUDIO_OPEN_REGISTRATION", default=False)
STUDIO_SHOW_DEMO_ACCOUNT = False
