"""Provider keys never reach a log line: the registry, the filter, its installation."""

from __future__ import annotations

import io
import logging

import pytest

from studio.providers import crypto, redaction
from studio.providers.redaction import RedactSecretsFilter

KEY = "studio-test-key-Zq8W3xY7pL2m"  # no known key shape: only the registry can catch it


@pytest.fixture
def fresh_registry(monkeypatch):
    monkeypatch.setattr(redaction, "_secrets", set())
    monkeypatch.setattr(redaction, "_snapshot", frozenset())


def render(record: logging.LogRecord, *filters: logging.Filter) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    for item in filters:
        handler.addFilter(item)
    handler.handle(record)
    return stream.getvalue()


def record_of(message: str, *args: object, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord("studio.test", logging.ERROR, __file__, 1, message, args, exc_info)


def raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as caught:
        return caught


def test_encrypting_or_decrypting_a_key_registers_it(fresh_registry, monkeypatch) -> None:
    stored = crypto.encrypt(KEY)
    assert KEY in redaction.known_secrets()  # it came in clear with the request
    # A worker only ever decrypts it.
    monkeypatch.setattr(redaction, "_secrets", set())
    monkeypatch.setattr(redaction, "_snapshot", frozenset())
    assert crypto.decrypt(stored) == KEY
    assert KEY in redaction.known_secrets()


def test_the_filter_redacts_the_message_its_arguments_and_every_chained_exception(
    fresh_registry,
) -> None:
    redaction.register_secret(KEY)

    def chained() -> BaseException:
        try:
            try:
                try:
                    raise ValueError(f"provider said: bad key {KEY}")
                except ValueError:
                    raise KeyError(f"Bearer {KEY}")  # noqa: B904 (__context__ on purpose)
            except KeyError as error:
                raise RuntimeError(f"cause {KEY}") from error  # __cause__
        except RuntimeError as error:
            return error

    group = raised(ExceptionGroup("calls failed", [chained(), OSError(f"echo {KEY}")]))
    record = record_of("run %s failed with %r", 7, KEY, exc=group)
    record.stack_info = f"Stack (most recent call last):\n  key={KEY}"
    text = render(record, RedactSecretsFilter())
    assert KEY not in text
    assert "run 7 failed with '***'" in text
    for seen in ("calls failed", "provider said", "cause ***", "Bearer ***", "echo ***"):
        assert seen in text, seen
    # Without the filter the same record would have shown the key (the test is real).
    assert KEY in render(record_of("%s", KEY, exc=group))


def test_key_shapes_are_redacted_without_a_registered_secret(fresh_registry) -> None:
    text = render(record_of("401: Incorrect API key provided: sk-proj-abcdef0123456789"))
    assert "sk-proj" in text  # no filter
    text = render(
        record_of("401: Incorrect API key provided: sk-proj-abcdef0123456789"),
        RedactSecretsFilter(),
    )
    assert text.strip() == "401: Incorrect API key provided: ***"


def test_settings_install_the_filter_on_the_root_handler_and_litellms_logger() -> None:
    root_filters = [f for h in logging.getLogger().handlers for f in h.filters]
    assert any(isinstance(f, RedactSecretsFilter) for f in root_filters)
    assert any(isinstance(f, RedactSecretsFilter) for f in logging.getLogger("LiteLLM").filters)
    assert logging.getLogger("django").handlers == []  # its records reach the root's handler


def test_a_celery_worker_s_own_handlers_get_the_filter(fresh_registry, monkeypatch) -> None:
    from celery.signals import after_setup_logger, after_setup_task_logger

    redaction.register_secret(KEY)
    root = logging.getLogger()
    worker_handler = logging.StreamHandler(io.StringIO())
    task_logger = logging.getLogger("celery.task.redaction-test")
    task_handler = logging.StreamHandler(io.StringIO())
    monkeypatch.setattr(root, "handlers", [worker_handler])  # what a hijacking worker leaves
    monkeypatch.setattr(task_logger, "handlers", [task_handler])
    after_setup_logger.send(sender=None, logger=root, loglevel=logging.INFO, logfile=None,
                            format="", colorize=False)  # fmt: skip
    after_setup_task_logger.send(sender=None, logger=task_logger, loglevel=logging.INFO,
                                 logfile=None, format="", colorize=False)  # fmt: skip
    for handler in (worker_handler, task_handler):
        assert any(isinstance(f, RedactSecretsFilter) for f in handler.filters)
        handler.handle(record_of("boom", exc=raised(RuntimeError(KEY))))
        assert KEY not in handler.stream.getvalue()
        assert "RuntimeError: ***" in handler.stream.getvalue()


def test_a_record_whose_arguments_do_not_match_is_left_for_the_handler(fresh_registry) -> None:
    record = record_of("%s and %s", "only one")
    assert RedactSecretsFilter().filter(record)
    assert record.args == ("only one",)
