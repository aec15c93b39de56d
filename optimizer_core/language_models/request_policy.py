"""Where a model's requests may go: a `RequestPolicy`, checked on the address each connection uses.

A server that calls the URLs its users chose (a provider's ``api_base``) must not become
their way into its own network: loopback, link-local (169.254.169.254, the cloud metadata
address), private ranges, the server's own port. A `RequestPolicy` says which destinations
a model may reach. `ModelBase` applies it to every attempt in two places:

1. before anything is sent, the base URL's host is resolved and every address it resolves
   to is checked (`RequestPolicy.check_url`): a clear, early refusal naming the address,
   and no request at all;
2. while the transport runs, every socket the call opens is checked on the address it
   connects to (`enforced`): an audit hook (PEP 578) on ``socket.connect`` reads the
   call's policy from a context variable. That is the address the connection really
   uses, after DNS: a name that resolves to 127.0.0.1 when the client connects (DNS
   rebinding), the target of a redirect, a side request litellm makes on its own
   (ollama's model lookup goes to localhost:11434 whatever ``api_base`` says), all meet
   the same check, whichever HTTP stack litellm picked for the provider (the openai SDK
   over httpx, its aiohttp transport, its synchronous httpx client in a worker thread).

Why a hook on the connect and not a transport of our own: litellm 1.106.2 builds its HTTP
clients in many places (per provider, cached, some synchronous, in threads), and a
transport covers only the clients it is handed; the connect is where every one of them
ends. Connections are refused with an ``OSError`` (`RefusedConnection`), so a client
cleans up and tries its next address as after any refused connection; the call then
fails with `RequestRefused`, whatever the client made of the ``OSError``.

What the hook cannot see: a connection opened from a thread that does not carry the
call's context (``asyncio.to_thread`` and litellm's executors do), or by C code that
bypasses Python's ``socket`` module. Pooled connections were checked when they were
opened; a model under no policy (the bundled server, which the studio starts itself)
reaches its server through clients of its own, so no pooled connection crosses over.

The library applies no policy unless given one (``LanguageModel(request_policy=...)``)
or a process default (`set_default_policy`): as a library it calls what its user asks.
The studio installs a default built from its settings (``studio.providers.outgoing``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import errno
import ipaddress
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

from optimizer_core.exceptions import RequestRefused

__all__ = [
    "UNRESTRICTED",
    "Allowance",
    "Refusal",
    "RefusedConnection",
    "RequestPolicy",
    "default_policy",
    "enforced",
    "parse_allowance",
    "set_default_policy",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SHARED = ipaddress.IPv4Network("100.64.0.0/10")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_RESOLVED_TTL_S = 60.0


class RefusedConnection(PermissionError):
    """What a refused ``socket.connect`` raises inside the transport (an ``OSError``)."""


@dataclasses.dataclass(frozen=True)
class Allowance:
    """One entry of an allow-list: a host name, an address or a network, with a port or not.

    Attributes:
        text: the entry as written (``"127.0.0.1:11434"``, ``"10.0.0.0/8"``, ``"vllm.lan"``,
            ``"*.corp.example"``).
        network: the network for an address or a network entry, else None.
        name: the host name, lower case (``"*.corp.example"`` keeps its star), else "".
        port: the one port allowed, or None for any.
    """

    text: str
    network: IPNetwork | None = None
    name: str = ""
    port: int | None = None

    def matches_address(self, address: IPAddress, port: int) -> bool:
        return (
            self.network is not None
            and address.version == self.network.version
            and address in self.network
            and (self.port is None or self.port == port)
        )

    def matches_name(self, host: str, port: int) -> bool:
        if not self.name or (self.port is not None and self.port != port):
            return False
        host = host.lower().rstrip(".")
        if self.name.startswith("*."):
            return host.endswith(self.name[1:]) and host != self.name[2:]
        return host == self.name


def parse_allowance(text: str) -> Allowance:
    """An `Allowance` from ``host``, ``host:port``, ``[v6]:port``, an address or a CIDR network.

    Raises:
        ValueError: an entry that is none of these (the message quotes it).
    """
    entry = text.strip()
    if not entry:
        raise ValueError("an empty entry")
    host, port = entry, None
    if entry.startswith("["):
        inside, _, rest = entry[1:].partition("]")
        host = inside
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"{text!r} is not host, host:port or a network")
            port = _port(rest[1:], text)
    elif entry.count(":") == 1:
        host, _, port_text = entry.partition(":")
        port = _port(port_text, text)
    try:
        network = ipaddress.ip_network(host, strict=False)
    except ValueError:
        name = host.lower().rstrip(".")
        label = name.removeprefix("*.")
        if not label or not all(part and _is_label(part) for part in label.split(".")):
            raise ValueError(f"{text!r} is not a host name, an address or a network") from None
        return Allowance(text=entry, name=name, port=port)
    return Allowance(text=entry, network=network, port=port)


def _port(value: str, text: str) -> int:
    if not value.isdigit() or not 0 < int(value) < 65536:
        raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
    return int(value)


def _is_label(part: str) -> bool:
    return len(part) <= 63 and all(c.isalnum() or c in "-_" for c in part)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv6 one that carries it (mapped, NAT64, 6to4, compatible)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if int(address) >> 32 == 0 and int(address) > 1:  # ::a.b.c.d, deprecated "compatible"
        return ipaddress.IPv4Address(int(address))
    return None


def address_kind(address: IPAddress) -> str | None:
    """Why an address is not a public one (``"a loopback address"``), or None when it is."""
    inner = _embedded_ipv4(address)
    if inner is not None:
        kind = address_kind(inner)
        return None if kind is None else f"{kind} ({inner} inside an IPv6 address)"
    if address.is_unspecified:
        return "the unspecified address (this machine)"
    if address.is_loopback:
        return "a loopback address (this machine)"
    if address.is_link_local:
        return "a link-local address (169.254.169.254 is the cloud metadata service)"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address) and address in _SHARED:
        return "a carrier-grade NAT address (shared, not public)"
    if address.is_private:
        return "a private-network address"
    if address.is_reserved or not address.is_global:
        return "a reserved address"
    if isinstance(address, ipaddress.IPv6Address) and address.is_site_local:
        return "a site-local address"
    return None


def _parse_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


class RequestPolicy:
    """Which destinations a model's requests may reach.

    By default every address that is not public is refused: loopback, link-local
    (169.254.0.0/16 with the metadata address, fe80::/10), private ranges (10/8,
    172.16/12, 192.168/16, fc00::/7), carrier-grade NAT, multicast, reserved and
    unspecified addresses, IPv4 addresses carried inside IPv6 ones (``::ffff:127.0.0.1``)
    judged as the IPv4 address. ``allow`` lists what an administrator opened anyway;
    ``own`` lists the server's own endpoints, refused even where ``allow`` would let
    them through (a server has no business calling itself as a model).

    Args:
        allow: entries allowed although not public (`parse_allowance` strings or
            `Allowance`): ``"127.0.0.1:11434"``, ``"10.0.0.0/8"``, ``"vllm.lan"``. A host
            name allows whatever addresses it resolves to.
        own: the server's own endpoints (same syntax), always refused.
        refuse_private: False allows every address (what `UNRESTRICTED` is).
        advice: what a refusal adds for the reader, formatted with ``{entry}``, the
            allow-list entry that would have let it through (the studio names its
            setting: ``"an administrator can add {entry} to STUDIO_ALLOWED_OUTGOING"``).

    Example:
        ```python
        policy = RequestPolicy(allow=["127.0.0.1:11434"])
        lm = LanguageModel("ollama/llama3.1", api_base="http://127.0.0.1:11434",
                           request_policy=policy)
        ```
    """

    def __init__(
        self,
        allow: Any = (),
        own: Any = (),
        *,
        refuse_private: bool = True,
        advice: str = "allow it with RequestPolicy(allow=[{entry!r}])",
    ) -> None:
        self.allow: tuple[Allowance, ...] = _allowances(allow)
        self.own: tuple[Allowance, ...] = _allowances(own)
        self.refuse_private = bool(refuse_private)
        self.advice = advice
        # host -> (when, addresses): allow-listed names, and base URLs found allowed.
        self._resolved: dict[str, tuple[float, frozenset[IPAddress]]] = {}

    def __repr__(self) -> str:
        allowed = [entry.text for entry in self.allow]
        own = [entry.text for entry in self.own]
        return f"RequestPolicy(allow={allowed}, own={own}, refuse_private={self.refuse_private})"

    @property
    def restricts(self) -> bool:
        """Whether this policy can refuse anything."""
        return self.refuse_private or bool(self.own)

    # -- the verdict on one destination ---------------------------------------

    def refusal(self, address: IPAddress, port: int, *, host: str = "") -> Refusal | None:
        """Why connecting to ``address:port`` (reached by the name ``host``) is refused, or None."""
        shown = _endpoint(address, port)
        for entry in self.own:
            if self._matches(entry, address, port, host):
                return Refusal(f"{shown} is this server's own endpoint ({entry.text})", "")
        if not self.refuse_private:
            return None
        kind = address_kind(address)
        if kind is None:
            return None
        if any(self._matches(entry, address, port, host) for entry in self.allow):
            return None
        named = host and _parse_address(host) is None
        return Refusal(f"{shown} is {kind}", f"{host.lower()}:{port}" if named else shown)

    def _matches(self, entry: Allowance, address: IPAddress, port: int, host: str) -> bool:
        if host and entry.matches_name(host, port):
            return True
        inner = _embedded_ipv4(address)
        for candidate in (address,) if inner is None else (address, inner):
            if entry.matches_address(candidate, port):
                return True
            if entry.name and self._name_has(entry, candidate, port):
                return True
        return False

    def _name_has(self, entry: Allowance, address: IPAddress, port: int) -> bool:
        """Whether the host name of ``entry`` resolves to ``address`` (cached for a minute)."""
        if (entry.port is not None and entry.port != port) or entry.name.startswith("*."):
            return False
        now = time.monotonic()
        cached = self._resolved.get(entry.name)
        if cached is None or now - cached[0] > _RESOLVED_TTL_S:
            cached = (now, frozenset(_resolve_now(entry.name, port)))
            self._resolved[entry.name] = cached
        return address in cached[1]

    def refused(self, refusal: Refusal, *, url: str = "") -> RequestRefused:
        """The `RequestRefused` for ``refusal``, with the advice naming its allow-list entry."""
        where = f" ({url})" if url else ""
        message = f"refused by the outgoing-request policy: {refusal.reason}{where}"
        if refusal.entry:
            message += "; " + self.advice.format(entry=refusal.entry)
        return RequestRefused(message, url=url, reason=refusal.reason, allow_entry=refusal.entry)

    # -- before sending -------------------------------------------------------

    async def check_url(self, url: str) -> None:
        """Refuse a base URL whose host is, or resolves to, an address this policy refuses.

        A host that does not resolve is left to the transport (it fails there, and a
        later resolution is checked on connect).

        Raises:
            RequestRefused: not http(s), or an address it resolves to is refused.
        """
        if not self.restricts:
            return
        host, port = _host_and_port(url)
        addresses = self._cached(host, port)
        if addresses is None:
            loop = asyncio.get_running_loop()
            try:
                infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError:
                infos = []
            addresses = self._remember(host, port, infos)
        self._judge(url, host, port, addresses)

    def check_url_now(self, url: str) -> None:
        """`check_url` without an event loop (resolving blocks): for a form's validation."""
        if not self.restricts:
            return
        host, port = _host_and_port(url)
        addresses = self._cached(host, port)
        if addresses is None:
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError:
                infos = []
            addresses = self._remember(host, port, infos)
        self._judge(url, host, port, addresses)

    def _cached(self, host: str, port: int) -> list[IPAddress] | None:
        literal = _parse_address(host)
        if literal is not None:
            return [literal]
        cached = self._resolved.get(f"{host.lower()}:{port}")
        if cached is not None and time.monotonic() - cached[0] <= _RESOLVED_TTL_S:
            return sorted(cached[1], key=str)
        return None

    def _remember(self, host: str, port: int, infos: list[Any]) -> list[IPAddress]:
        found = [_parse_address(str(info[4][0])) for info in infos]
        addresses = [a for a in found if a is not None]
        if addresses and all(self.refusal(a, port, host=host) is None for a in addresses):
            # Only a verdict of "allowed" is kept: connections are checked anyway.
            self._resolved[f"{host.lower()}:{port}"] = (time.monotonic(), frozenset(addresses))
        return addresses

    def _judge(self, url: str, host: str, port: int, addresses: list[IPAddress]) -> None:
        for address in addresses:
            refusal = self.refusal(address, port, host=host)
            if refusal is not None:
                raise self.refused(refusal, url=url)

    # -- while sending ----------------------------------------------------------

    def check_connect(self, family: int, address: Any) -> Refusal | None:
        """Why ``socket.connect(address)`` on a socket of ``family`` is refused, or None."""
        if family not in (socket.AF_INET, socket.AF_INET6):
            name = getattr(socket.AddressFamily(family), "name", str(family))
            return Refusal(f"a {name} connection (only TCP/IP connections are allowed)", "")
        host, port = str(address[0]), int(address[1])
        literal = _parse_address(host)
        for candidate in [literal] if literal is not None else _resolve_now(host, port):
            refusal = self.refusal(candidate, port, host="" if literal is not None else host)
            if refusal is not None:
                return refusal
        return None


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Why a destination is refused, and the allow-list entry that would admit it ("": none)."""

    reason: str
    entry: str


def _host_and_port(url: str) -> tuple[str, int]:
    """The host and port a base URL connects to.

    Raises:
        RequestRefused: not an http(s) URL with a host and a valid port.
    """
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    if scheme not in _DEFAULT_PORTS or not parts.hostname or port == -1:
        raise RequestRefused(
            f"refused by the outgoing-request policy: {url!r} is not an http(s) URL with a host",
            url=url,
            reason="not an http(s) URL with a host",
        )
    return parts.hostname, port or _DEFAULT_PORTS[scheme]


def _allowances(entries: Any) -> tuple[Allowance, ...]:
    if isinstance(entries, str):
        entries = [entries]
    return tuple(e if isinstance(e, Allowance) else parse_allowance(str(e)) for e in entries)


def _endpoint(address: IPAddress, port: int) -> str:
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"


def _resolve_now(host: str, port: int) -> list[IPAddress]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return []
    found = [_parse_address(str(info[4][0])) for info in infos]
    return [a for a in found if a is not None]


UNRESTRICTED = RequestPolicy(refuse_private=False)
"""A policy that allows every destination: for a server the program started itself."""


# -- the process default ------------------------------------------------------

_default: Callable[[], RequestPolicy | None] | None = None


PolicySource = Callable[[], "RequestPolicy | None"]


def set_default_policy(policy: RequestPolicy | PolicySource | None) -> PolicySource | None:
    """The policy of every model that was given none (None: no policy, the library's default).

    Args:
        policy: a `RequestPolicy`, or a function returning the one in force (read at
            each request, so it follows a configuration that changes), or None.

    Returns:
        The default it replaces (to put back with this function).
    """
    global _default
    previous = _default
    if policy is None or (callable(policy) and not isinstance(policy, RequestPolicy)):
        _default = policy
    else:
        fixed = policy
        _default = lambda: fixed  # noqa: E731
    return previous


def default_policy() -> RequestPolicy | None:
    """The process default policy (see `set_default_policy`), or None."""
    return None if _default is None else _default()


# -- enforcement at the connect ----------------------------------------------


class _Guard:
    """One transport call under a policy: the refusals its connections met, by port."""

    def __init__(self, policy: RequestPolicy) -> None:
        self.policy = policy
        self.refusals: list[tuple[int, RequestRefused]] = []

    def check(self, sock: Any, address: Any) -> None:
        try:
            family = int(sock.family)
        except (AttributeError, TypeError, ValueError):
            return
        refusal = self.policy.check_connect(family, address)
        if refusal is None:
            return
        port = address[1] if isinstance(address, tuple) and len(address) > 1 else 0
        self.refusals.append((int(port), self.policy.refused(refusal)))
        raise RefusedConnection(
            errno.EACCES, f"refused by the outgoing-request policy: {refusal.reason}"
        )

    def refusal(self, destination: str | None) -> RequestRefused | None:
        """The refusal that explains the call: the one on the destination's port, else the first.

        (litellm's ollama provider also asks its default localhost:11434 for model
        details; that refusal is not the one to report for a request elsewhere.)
        """
        if not self.refusals:
            return None
        port = _url_port(destination) if destination else None
        for refused_port, error in self.refusals:
            if refused_port == port:
                return error
        return self.refusals[0][1]


def _url_port(url: str) -> int | None:
    parts = urllib.parse.urlsplit(url)
    try:
        return parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return None


_GUARD: contextvars.ContextVar[_Guard | None]
_GUARD = contextvars.ContextVar("request_guard", default=None)
_hook_lock = threading.Lock()
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "socket.connect":
        return
    guard = _GUARD.get()
    if guard is not None:
        guard.check(args[0], args[1])


def _install_hook() -> None:
    global _hook_installed
    if _hook_installed:
        return
    with _hook_lock:
        if not _hook_installed:
            sys.addaudithook(_audit)
            _hook_installed = True


@contextlib.contextmanager
def enforced(policy: RequestPolicy | None) -> Iterator[_Guard | None]:
    """Check each ``socket.connect`` made in this context (its tasks, threads) against ``policy``.

    Yields the guard, whose ``refusal(destination)`` is the `RequestRefused` a connection
    met (None if none did); None when ``policy`` restricts nothing.
    """
    if policy is None or not policy.restricts:
        yield None
        return
    _install_hook()
    guard = _Guard(policy)
    token = _GUARD.set(guard)
    try:
        yield guard
    finally:
        _GUARD.reset(token)
