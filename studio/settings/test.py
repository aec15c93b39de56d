"""Settings for the test suite."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-not-secret")

from studio.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STUDIO_ENCRYPTION_KEY = "r6vJXFhFfeLh8Lk0m2n8S6bo3ls4m3f1S9s9cV0d0Ls="
