"""The studio's outgoing-request policy: where a user's provider may make this server connect.

Every language and embedding model a studio process builds (providers' test and try,
runs, judges, OMEGA's models, deployments' predict and batch) reaches its provider
under one `optimizer_core.language_models.request_policy.RequestPolicy`, installed as
the engine's process default when the app is ready (`install`), so a model built from
a stored document or a run config is covered as much as one built from a provider.
The policy is rebuilt from settings when they change (tests override them).

What it refuses, in every settings module: every address that is not public (loopback,
link-local with the cloud metadata address, private ranges, their IPv6 equivalents,
IPv4 inside IPv6, unspecified) unless ``STUDIO_ALLOWED_OUTGOING`` lists it, and this
studio's own endpoints (its port on this machine, its public host names) whatever that
list says. The bundled model, which the studio starts itself on loopback, is reached
through its server's own model (`LocalModelServer.language_model`, under no policy),
never through an address a user typed.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from typing import Any

from django.conf import settings

from optimizer_core.exceptions import RequestRefused
from optimizer_core.language_models.request_policy import (
    RequestPolicy,
    parse_allowance,
    set_default_policy,
)

SETTING = "STUDIO_ALLOWED_OUTGOING"
ADVICE = (
    "an administrator would have to allow it: add {entry} to " + SETTING + " (docs/security.md)"
)


def current_policy() -> RequestPolicy:
    """The policy the settings in force describe (the same object while they do not change)."""
    allowed = tuple(getattr(settings, SETTING, ()) or ())
    port = int(getattr(settings, "STUDIO_PORT", 8000))
    hosts = tuple(getattr(settings, "ALLOWED_HOSTS", ()) or ())
    return _policy(allowed, port, hosts)


@functools.lru_cache(maxsize=8)
def _policy(allowed: tuple[str, ...], port: int, hosts: tuple[str, ...]) -> RequestPolicy:
    return RequestPolicy(allow=allowed, own=own_endpoints(port, hosts), advice=ADVICE)


def own_endpoints(port: int, hosts: tuple[str, ...]) -> list[str]:
    """This studio's endpoints: its port on loopback, unspecified and this machine's
    addresses, and its public host names (``ALLOWED_HOSTS``) on 80, 443 and its port."""
    own = [f"127.0.0.0/8:{port}", f"[::1]:{port}", f"0.0.0.0:{port}", f"[::]:{port}"]
    own += [f"[{a}]:{port}" if ":" in a else f"{a}:{port}" for a in _machine_addresses()]
    for host in hosts:
        name = host.strip().lower()
        if not name or name.startswith((".", "*")) or name == "localhost" or _is_address(name):
            continue
        own += [f"{name}:80", f"{name}:443", f"{name}:{port}"]
    return own


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=1)
def _machine_addresses() -> tuple[str, ...]:
    """The addresses this machine's host name resolves to (best effort, looked up once)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM)
    except OSError:
        return ()
    return tuple(sorted({str(info[4][0]) for info in infos}))


def check_allowed_outgoing(entries: Any) -> list[str]:
    """The setting's entries, each checked (a settings module calls it at start).

    Raises:
        django.core.exceptions.ImproperlyConfigured: an entry that is no host, address
            or network, naming it.
    """
    from django.core.exceptions import ImproperlyConfigured

    checked = []
    for entry in entries or ():
        try:
            checked.append(parse_allowance(str(entry)).text)
        except ValueError as error:
            raise ImproperlyConfigured(f"{SETTING}: {error}") from None
    return checked


def check_api_base(api_base: str) -> None:
    """Refuse, at save time, a base URL the policy would refuse at request time.

    It resolves the host now; a host that does not resolve is accepted (each request
    is checked again, on the address it connects to).

    Raises:
        RequestRefused: its message says what an administrator would have to allow.
    """
    if api_base:
        current_policy().check_url_now(api_base)


def install() -> None:
    """Make `current_policy` the engine's default for every model of this process."""
    set_default_policy(current_policy)


__all__ = [
    "SETTING",
    "RequestRefused",
    "check_allowed_outgoing",
    "check_api_base",
    "current_policy",
    "install",
    "own_endpoints",
]
