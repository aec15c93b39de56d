"""The health-check watchdog: a thread that restarts a crashed server between requests.

Models check the server before each request anyway (`ensure_running`); the
watchdog also restarts it while nobody is asking, so the next request does not
wait for the start. It holds its server weakly, so a server nobody references
is still collected (its thread then ends at the next tick), and it ends on the
first error it cannot recover from (logged), or when ``stopping`` is set.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Protocol

from optimizer_core.exceptions import LocalModelError

logger = logging.getLogger(__name__)


class Restartable(Protocol):
    """What the watchdog checks: `LocalModelServer` (any object with this method)."""

    def ensure_running(self) -> None:
        """Restart the server if its process has exited; raise `LocalModelError` if it cannot."""


def start_watchdog(
    server: Restartable, *, interval: float, stopping: threading.Event, name: str
) -> threading.Thread:
    """Start a daemon thread calling ``server.ensure_running()`` every ``interval`` seconds.

    Args:
        server: what to keep running (held through a weak reference).
        interval: seconds between checks.
        stopping: set it to end the thread (at its next tick at the latest).
        name: the thread's name.

    Returns:
        The started thread.
    """
    reference = weakref.ref(server)

    def watch() -> None:
        while not stopping.wait(interval):
            watched = reference()
            if watched is None:
                return
            try:
                watched.ensure_running()
            except LocalModelError as error:
                if not stopping.is_set():
                    logger.error("local model server watchdog: %s", error)
                return
            finally:
                del watched

    thread = threading.Thread(target=watch, name=name, daemon=True)
    thread.start()
    return thread


__all__ = ["Restartable", "start_watchdog"]
