"""What the browser tests share: the marker, where chromium and the built app are, the
marks that skip without them, one chromium per module, and the console-error watch."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
DIST_INDEX = ROOT / "frontend" / "dist" / "index.html"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)"
    ),
    pytest.mark.skipif(
        not DIST_INDEX.exists(), reason="frontend not built (cd frontend && npm run build)"
    ),
]
"""Each browser test module's ``pytestmark``."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives Debian's chromium through Playwright against the real stack"
    )


def launch_chromium(playwright: Any) -> Any:
    """Debian's chromium, headless, from a started Playwright."""
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium for the module's tests."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is not installed"
    )
    with sync_api.sync_playwright() as pw:
        instance = launch_chromium(pw)
        try:
            yield instance
        finally:
            instance.close()


def watch_console(page: Any) -> list[str]:
    """The console errors and uncaught page errors of `page`, as they come.

    Before signing in, /api/auth/me/ answers 403 by design: not an error of the app.
    """
    errors: list[str] = []

    def on_console(message: Any) -> None:
        if message.type == "error" and not message.location.get("url", "").endswith(
            "/api/auth/me/"
        ):
            errors.append(f"{message.text} @ {message.location}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    return errors
