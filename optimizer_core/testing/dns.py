"""Host names that resolve as a test says, for every client in the process.

`resolving` replaces ``socket.getaddrinfo``, which every resolver of the process goes
through (asyncio's ``loop.getaddrinfo``, aiohttp's threaded resolver, anyio, httpx's
synchronous client), for the names it is given, and leaves every other name alone. A
name may answer a different address each time it is looked up, which is how DNS
rebinding looks from the client: public when checked, loopback when connected.

Example:
    ```python
    with resolving({"rebind.test": ["93.184.215.14", "127.0.0.1"]}):
        ...  # the first lookup answers 93.184.215.14, every later one 127.0.0.1
    ```
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = ["resolving"]


@contextlib.contextmanager
def resolving(names: Mapping[str, str | Sequence[str]]) -> Iterator[dict[str, int]]:
    """Make each name of ``names`` resolve to its address (or its addresses in turn).

    Args:
        names: host name -> an address, or a list of addresses answered one per lookup
            (the last one for every lookup after them).

    Yields:
        How many times each name was looked up.
    """
    real = socket.getaddrinfo
    lookups = dict.fromkeys((name.lower() for name in names), 0)
    answers = {
        name.lower(): [value] if isinstance(value, str) else list(value)
        for name, value in names.items()
    }
    lock = threading.Lock()

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode("idna") if isinstance(host, bytes) else host
        key = name.lower().rstrip(".") if isinstance(name, str) else None
        if key not in answers:
            return real(host, *args, **kwargs)
        with lock:
            index = min(lookups[key], len(answers[key]) - 1)
            lookups[key] += 1
        return real(answers[key][index], *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
    try:
        yield lookups
    finally:
        socket.getaddrinfo = real
