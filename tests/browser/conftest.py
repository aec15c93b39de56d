"""The browser tests' marker (registered here until pyproject.toml lists it)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives Debian's chromium through Playwright against the real stack"
    )
