"""What the browser tests share: the marker, where chromium and the built app are, the
marks that skip without them, one chromium per module, the console-error watch, and the
two studios the tests start: the demo seeded as `make run` seeds it (`demo_stack`) and
a bare one beside a scripted model server answering the capitals task
(`bare_stack`, `capitals_server`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from tests.studio.realtime.live_stack import LiveStack

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

# What ensure_demo makes (studio/accounts/services.py), as the sign-in page names it.
DEMO_USER, DEMO_PASSWORD = "demo", "demo-password-change-me"
DEMO_PROGRAM = "Support ticket topics (demo)"
DEMO_DATASET = "Support tickets (demo)"


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


def selected(select: Any) -> str:
    """The text of a <select>'s chosen option ('' when none is)."""
    return str(select.evaluate("el => el.options[el.selectedIndex]?.text ?? ''"))


def sign_in(page: Any, username: str = DEMO_USER, password: str = DEMO_PASSWORD) -> None:
    """Sign in on /login and wait for the programs page."""
    expect = pytest.importorskip("playwright.sync_api").expect
    page.goto("/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Programs", exact=True)).to_be_visible()


# Runs in a stack's environment (manage.py shell): a new version of the demo dataset with the
# first `rows` rows of each split; prints its number and its train and test counts.
_SMALLER_DEMO = """
from studio.datasets import versions
from studio.datasets.models import Dataset
dataset = Dataset.objects.get(name={dataset!r})
rows = list(versions.iter_rows(versions.latest_version(dataset)))
by_split = {{split: [r.row_id for r in rows if r.split == split] for split in ("train", "test")}}
keep = {{row_id for ids in by_split.values() for row_id in ids[:{rows}]}}
version = versions.create_version(
    dataset, remove=[r.row_id for r in rows if r.row_id not in keep], message="fewer rows"
)
print(version.number, version.train_count, version.test_count)
"""


def smaller_demo_version(stack: LiveStack, rows: int) -> int:
    """Make a version of the demo dataset with `rows` training and `rows` test rows.

    A run on the bundled model costs its rows' calls: a browser test that shows that a
    run trains needs a few dozen rows, not the demo's 200. Returns the version's number.
    """
    printed = stack.manage("shell", "-c", _SMALLER_DEMO.format(dataset=DEMO_DATASET, rows=rows))
    number, train, test = printed.split()[-3:]
    assert (int(train), int(test)) == (rows, rows), printed
    return int(number)


def _live_stack(tmp_path_factory: pytest.TempPathFactory) -> LiveStack:
    return LiveStack(
        {"STUDIO_FRONTEND_DIST": str(ROOT / "frontend" / "dist")},
        tmp_path_factory.mktemp("studio"),
    )


@pytest.fixture(scope="module")
def demo_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    """The embedded studio in `make run`'s order: migrate, ensure_demo, then the processes.

    Only the ports and the var directory differ from `make run` (a fresh one, so the LM
    cache starts empty as on a first start); the settings are the embedded default's.
    """
    live = _live_stack(tmp_path_factory)
    live.migrate()
    seeded = live.manage("ensure_demo")
    assert DEMO_PROGRAM in seeded and "valid" in seeded, seeded
    live.start()
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture(scope="module")
def bare_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    """The embedded studio, migrated, with nobody in it: the test seeds what it needs."""
    live = _live_stack(tmp_path_factory)
    with live.running():
        yield live


@pytest.fixture(scope="module")
def capitals_server() -> Iterator[ScriptedServer]:
    """A scripted OpenAI-compatible server answering as the capitals task's student."""
    _, _, student = capitals_task()
    server = ScriptedServer(student.from_request, latency=0.05).start_in_thread()
    try:
        yield server
    finally:
        server.stop()
