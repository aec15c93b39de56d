"""Fixtures for every test: the engine's own tests run it as a library, without the studio."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from optimizer_core.language_models import request_policy

# The studio's in-process tests run under its outgoing-request policy (the live stacks of
# tests/integration and tests/browser run the studio in processes of their own).
_STUDIO_TESTS = ("studio",)


@pytest.fixture(autouse=True)
def _engine_runs_as_a_library(request: pytest.FixtureRequest) -> Iterator[None]:
    """No default request policy outside the studio's tests.

    pytest-django sets Django up once for the whole session, so the studio's app installs
    its outgoing-request policy as the engine's process default for every test. A library
    user's process has none: the engine's own tests run without it (and point models at
    scripted servers on loopback, as a library user may).
    """
    parts = Path(str(request.path)).resolve().relative_to(Path(__file__).resolve().parent).parts
    if parts and parts[0] in _STUDIO_TESTS:
        yield
        return
    previous = request_policy.set_default_policy(None)
    try:
        yield
    finally:
        request_policy.set_default_policy(previous)
