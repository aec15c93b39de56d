"""Which key a provider's requests carry: its own, one the administrator granted, or none.

litellm, and the SDKs under it, read the server's environment when a call names no key
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``...) or no organisation (``OPENAI_ORGANIZATION``):
a provider saved without a key, pointed at a user's ``api_base``, would carry the
server's key to that user. Two guards keep them apart:

- every model the studio builds is told not to fall back to the environment
  (``environment_keys = False``): a provider without a key of its own sends the
  placeholder ``sk-no-key-required``, which servers that need no key ignore;
- when the app starts, the provider credentials in the environment (``*_API_KEY``,
  ``*_ORGANIZATION``, ``AWS_*``...) are taken out of ``os.environ`` (`scrub_environment`),
  so neither litellm nor a child process can read them later.

An administrator who wants the users of a provider kind to share a key says so:
``STUDIO_GRANTED_KEYS=openai=OPENAI_API_KEY`` gives the value of ``OPENAI_API_KEY``
(read before the scrub) to openai providers saved without a key of their own and
without an ``api_base``: the key goes to the provider's own endpoint only, never to an
address a user typed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, MutableMapping

from django.core.exceptions import ImproperlyConfigured

__all__ = ["granted_key", "parse_grants", "scrub_environment"]

#: What a provider credential's environment variable looks like.
CREDENTIAL_VARIABLE = re.compile(
    r"(_API_KEY|_API_TOKEN|_AUTH_TOKEN|_ACCESS_TOKEN|_SECRET_KEY|_SECRET|_ORGANIZATION|"
    r"_ORG_ID|_PROJECT_ID|_PROJECT|_KEY)$|^(AWS_|AZURE_|VERTEX|GOOGLE_APPLICATION_CREDENTIALS)",
)
#: The studio's own settings, read from the environment by its settings module.
_OWN = re.compile(r"^(STUDIO_|DJANGO_|CELERY_|DATABASE_|CHANNEL_)")

_granted: dict[str, str] = {}


def parse_grants(text: Iterable[str]) -> dict[str, str]:
    """``["openai=OPENAI_API_KEY"]`` as ``{"openai": "OPENAI_API_KEY"}``.

    Raises:
        ImproperlyConfigured: an entry that is not ``kind=VARIABLE``, naming it.
    """
    grants: dict[str, str] = {}
    for entry in text:
        kind, sep, variable = entry.strip().partition("=")
        if not sep or not kind.strip() or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", variable):
            raise ImproperlyConfigured(
                f"STUDIO_GRANTED_KEYS: {entry!r} is not kind=VARIABLE (openai=OPENAI_API_KEY)"
            )
        grants[kind.strip().lower()] = variable.strip()
    return grants


def scrub_environment(
    grants: dict[str, str], environ: MutableMapping[str, str] | None = None
) -> list[str]:
    """Take provider credentials out of the environment, keeping the granted ones here.

    Returns:
        The names of the variables removed (never their values).
    """
    environ = os.environ if environ is None else environ
    for kind, variable in grants.items():
        value = environ.get(variable)
        if value:
            _granted[kind] = value
    removed = [
        name for name in list(environ) if CREDENTIAL_VARIABLE.search(name) and not _OWN.match(name)
    ]
    for name in removed:
        environ.pop(name, None)
    return removed


def granted_key(kind: str, *, api_base: str) -> str | None:
    """The key an administrator granted to providers of ``kind``, for their own endpoint."""
    if api_base:
        return None
    return _granted.get(kind)
