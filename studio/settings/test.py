"""Settings for the test suite."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-not-secret")

from studio.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STUDIO_ENCRYPTION_KEY = "r6vJXFhFfeLh8Lk0m2n8S6bo3ls4m3f1S9s9cV0d0Ls="

# The whole suite signs in from one address: only failures are throttled at the real
# rate, so tests can exercise it (tests/studio/accounts/test_throttling.py).
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {
        "sign_in": "1000/min",
        "sign_in_failures": "10/min",
        "sign_up": "1000/min",
    },
}

# Users made as fixtures get no provider of their own: whether the bundled model is
# installed on the machine running the tests must not change what they see. The tests
# of new accounts turn it on (tests/studio/accounts/test_signup.py).
STUDIO_STARTER_PROVIDER = False
