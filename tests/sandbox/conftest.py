"""The sandbox tests run the real runtime: it is compiled for this machine first (once)."""

from __future__ import annotations

import pytest

from optimizer_core.sandbox import prepare


@pytest.fixture(scope="session")
def sandbox_runtime():
    """The compiled runtime (``make`` prepares it; a bare checkout compiles it here, once)."""
    return prepare()
