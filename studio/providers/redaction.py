"""API keys out of the logs: the keys in use, and a logging filter that removes them.

A provider that echoes the key in its 401 body puts it in litellm's exception,
which the engine's error chains (``raise ... from error``); a ``logger.exception``
would print it in the traceback. `crypto.decrypt` registers every key it
returns (`register_secret`), and `RedactSecretsFilter`, installed on the log
handlers in ``settings.LOGGING`` and on the ones a Celery worker sets up
(`install_in_celery`), rewrites each record before it is written: its message,
its whole traceback (``__cause__``, ``__context__`` and exception groups
included) and its stack, without those keys and without anything shaped like a
common API key (``sk-...``, ``Bearer ...``; see
`optimizer_core.language_models.redact_secrets`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from optimizer_core.language_models import redact_secrets

_lock = threading.Lock()
_secrets: set[str] = set()
_snapshot: frozenset[str] = frozenset()


def register_secret(value: str | None) -> None:
    """Remember a secret this process holds in clear, so no log line shows it.

    Kept for the life of the process: a key may still sit in an exception
    logged long after the model that used it is gone.
    """
    global _snapshot
    if not value or value in _snapshot:
        return
    with _lock:
        _secrets.add(value)
        _snapshot = frozenset(_secrets)


def known_secrets() -> frozenset[str]:
    """The secrets registered in this process."""
    return _snapshot


def redact(text: str) -> str:
    """``text`` without the registered secrets and without key-shaped strings."""
    return redact_secrets(text, _snapshot)


class RedactSecretsFilter(logging.Filter):
    """A handler filter that removes secrets from a record's message, traceback and stack.

    The record is rewritten in place (message formatted, ``args`` cleared, the
    traceback rendered into ``exc_text``), so every formatter after it, and
    every handler after this one, writes the redacted text. Records are never
    dropped.
    """

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            message = None  # a malformed call: leave it for the handler to report
        if message is not None:
            record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            # The default rendering prints the chain and groups in full.
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def add_filter(logger: logging.Logger) -> None:
    """Put a `RedactSecretsFilter` on each of the logger's handlers that lacks one."""
    for handler in logger.handlers:
        if not any(isinstance(f, RedactSecretsFilter) for f in handler.filters):
            handler.addFilter(RedactSecretsFilter())


def _on_celery_logging(logger: logging.Logger | None = None, **_: Any) -> None:
    # A worker replaces the root handlers settings.LOGGING made with its own.
    add_filter(logging.getLogger())
    if logger is not None:
        add_filter(logger)


def install_in_celery() -> None:
    """Redact the handlers a Celery worker installs (root and task loggers) too."""
    from celery.signals import after_setup_logger, after_setup_task_logger

    after_setup_logger.connect(_on_celery_logging, weak=False, dispatch_uid="studio-redact")
    after_setup_task_logger.connect(
        _on_celery_logging, weak=False, dispatch_uid="studio-redact-task"
    )
