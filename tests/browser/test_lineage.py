"""The lineage of an OMEGA run in a real browser: the DAG with its crossovers, a node's diff.

Starts the real stack (daphne serving the API and the built app, plus a Celery
worker), seeds a succeeded OMEGA run whose optimizer events are written straight
into the database (`tests.studio.runs.lineage_seed`: a real in-process fit, so the
page reads real events, without waiting for a training), then drives Debian's
chromium: the run page's Lineage section draws every candidate, a crossover's edges
come from both parents, and clicking a crossover shows its instructions diffed
against each parent and the rows it won or lost. Fails on any console error; the
screenshot goes to tests/browser/artifacts/lineage.png.

Run: ``cd frontend && npm run build`` then ``.venv/bin/pytest tests/browser -k lineage``.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import ARTIFACTS, BROWSER_MARKS, launch_chromium, watch_console
from tests.studio.realtime.live_stack import LiveStack

USERNAME, PASSWORD = "breeder", "a long enough passphrase"

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed"
)

pytestmark = BROWSER_MARKS

# Runs in the stack's environment (manage.py shell): a user and a seeded OMEGA run.
SEED = """
import json
from django.contrib.auth import get_user_model
from tests.studio.runs.lineage_seed import seed_omega_run
user = get_user_model().objects.create_user({username!r}, password={password!r})
run = seed_omega_run(user)
((name, state),) = run.trained_document["variables"].items()
print(json.dumps({{"run": run.pk, "variable": name, "best": state["current_candidate"]}}))
"""


def test_the_lineage_of_an_omega_run_shows_crossovers_and_a_nodes_diff(
    bare_stack: LiveStack,
) -> None:
    expect = playwright_api.expect
    code = SEED.format(username=USERNAME, password=PASSWORD)
    seeded = json.loads(bare_stack.manage("shell", "-c", code).strip().splitlines()[-1])
    best = "#" + seeded["best"].rpartition("#")[2]
    ARTIFACTS.mkdir(exist_ok=True)
    with playwright_api.sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(
            viewport={"width": 1280, "height": 800}, base_url=f"http://127.0.0.1:{bare_stack.port}"
        )
        page.set_default_timeout(20_000)

        console_errors = watch_console(page)

        page.goto(f"/runs/{seeded['run']}")
        page.get_by_label("Username").fill(USERNAME)
        page.get_by_label("Password").fill(PASSWORD)
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("run-state")).to_have_text("succeeded")

        page.get_by_role("button", name="Show the lineage").click()
        summary = page.get_by_test_id("lineage-summary")
        expect(summary).to_contain_text("13 candidates")
        expect(summary).to_contain_text(f"ended with {best}")
        canvas = page.get_by_role("region", name=f"Lineage of {seeded['variable']}")
        nodes = canvas.get_by_role("button", name=re.compile(r"^Candidate #\d+, "))
        expect(nodes).to_have_count(13)
        crossovers = canvas.get_by_role("button", name=re.compile(r"^Candidate #\d+, crossover"))
        assert crossovers.count() >= 4
        # Every crossover has two incoming edges, one from each parent (dashed).
        edges = canvas.locator(".react-flow__edge.lineage-crossover")
        expect(edges).to_have_count(2 * crossovers.count())
        expect(
            canvas.get_by_role("button", name=re.compile(rf"^Candidate {best}, .*best$"))
        ).to_be_visible()

        # The best is selected at first; click the first crossover to see its diff.
        panel = page.get_by_role("complementary", name="Candidate details")
        expect(panel).to_contain_text(seeded["best"])
        crossovers.first.click()
        expect(panel).to_contain_text(re.compile(r"crossover of #\d+ and #\d+"))
        parents = panel.get_by_role("region", name=re.compile(r"^Against parent #\d+$"))
        expect(parents).to_have_count(2)
        first = parents.first
        diff = first.get_by_label("instructions diff")
        expect(diff.locator("ins").first).to_be_visible()
        expect(diff).to_contain_text("Name the capital city only, rule")
        expect(first).to_contain_text("Training rows")
        page.screenshot(path=str(ARTIFACTS / "lineage.png"))
        browser.close()
    assert console_errors == []
