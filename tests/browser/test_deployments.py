"""Deploy a trained run in a real browser: deploy, the call snippet, switch to another run.

Starts the real stack (daphne serving the API, the websocket and the built app, plus a
Celery worker) and a scripted OpenAI-compatible server playing the capitals student,
seeds a user with two succeeded runs (the program untrained, and trained: three correct
few-shot examples), then drives Debian's chromium: from the first run's page, Deploy;
the "Use it" tab shows the curl and Python snippets with the deployment's real URL and
calls it once; the deployment is switched to the trained run, and the same call now
answers the bare city. Fails on any console error; screenshots go to
tests/browser/artifacts/.

Run: ``cd frontend && npm run build`` then ``.venv/bin/pytest tests/browser -k deploy``.
"""

from __future__ import annotations

import json
import re

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from tests.browser.conftest import ARTIFACTS, BROWSER_MARKS, launch_chromium, watch_console
from tests.studio.realtime.live_stack import LiveStack

USERNAME, PASSWORD = "deployer", "a long enough passphrase"
FRANCE = '{"query": "What is the capital of France?"}'

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed"
)

pytestmark = BROWSER_MARKS

# Runs in the stack's environment (manage.py shell): a user, a provider calling the
# scripted server, and two succeeded runs of the capitals program.
SEED = """
import json
from django.contrib.auth import get_user_model
from tests.studio.deployments.factories import make_provider, make_run
user = get_user_model().objects.create_user({username!r}, password={password!r})
provider = make_provider(user, {base_url!r})
untrained = make_run(user, provider, trained=False, name="untrained")
trained = make_run(user, provider, name="trained")
print(json.dumps({{"untrained": untrained.pk, "trained": trained.pk}}))
"""


def test_deploy_a_run_see_the_snippet_and_switch_to_another_run(
    bare_stack: LiveStack, capitals_server: ScriptedServer
) -> None:
    expect = playwright_api.expect
    code = SEED.format(username=USERNAME, password=PASSWORD, base_url=capitals_server.base_url)
    runs = json.loads(bare_stack.manage("shell", "-c", code).strip().splitlines()[-1])
    base = f"http://127.0.0.1:{bare_stack.port}"
    ARTIFACTS.mkdir(exist_ok=True)
    with playwright_api.sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 800}, base_url=base)
        page.set_default_timeout(20_000)

        console_errors = watch_console(page)

        # The first run's page, after signing in: a succeeded run can be deployed.
        page.goto(f"/runs/{runs['untrained']}")
        page.get_by_label("Username").fill(USERNAME)
        page.get_by_label("Password").fill(PASSWORD)
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("run-state")).to_have_text("succeeded")
        page.get_by_role("link", name="Deploy", exact=True).click()
        expect(page.get_by_label("Run", exact=True)).to_have_value(str(runs["untrained"]))
        page.get_by_label("Name", exact=True).fill("capitals")
        page.get_by_role("button", name="Deploy", exact=True).click()
        expect(page).to_have_url(re.compile(r"/deployments/capitals$"))

        # "Use it": the snippets carry the real URL; calling it from here answers.
        page.get_by_role("tab", name="Use it").click()
        url = f"{base}/api/deployments/capitals/predict/"
        expect(page.get_by_label("curl snippet")).to_contain_text(f"curl -X POST '{url}'")
        expect(page.get_by_label("Python snippet")).to_contain_text(f'"{url}"')
        expect(page.get_by_test_id("input-schema").first).to_contain_text('"query"')
        page.get_by_label("Input", exact=True).fill(FRANCE)
        page.get_by_role("button", name="Send").click()
        # The web process imports litellm on its first model call: seconds.
        expect(page.get_by_test_id("predict-output")).to_contain_text('"answer"', timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / "deployment-use-it.png"))

        # Switch to the trained run: it answers the bare city; the first run is kept.
        page.get_by_role("tab", name="Overview").click()
        switch = page.get_by_role("form", name="Switch")
        switch.get_by_label("Run", exact=True).select_option(str(runs["trained"]))
        switch.get_by_role("button", name="Switch").click()
        expect(page.get_by_test_id("serving")).to_contain_text(f"run #{runs['trained']}")
        expect(page.get_by_test_id("previous")).to_contain_text(f"run #{runs['untrained']}")
        expect(page.get_by_role("table", name="History")).to_contain_text("switch")
        page.get_by_role("tab", name="Use it").click()
        page.get_by_label("Input", exact=True).fill(FRANCE)
        page.get_by_role("button", name="Send").click()
        expect(page.get_by_test_id("predict-output")).to_contain_text('"answer": "Paris"')
        page.screenshot(path=str(ARTIFACTS / "deployment-switched.png"))
        browser.close()
    assert console_errors == []
