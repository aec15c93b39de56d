"""The prediction loop in a real browser: deploy, keep predictions, review, add, retrain.

Starts the real stack (daphne serving the API, the websocket and the built app, plus a
Celery worker) and a scripted OpenAI-compatible server playing the capitals student
(untrained, it answers in a sentence: "The capital of France is Paris."), seeds a user
with a succeeded run of the untrained capitals program, then drives Debian's chromium:
uploads a small dataset of the same fields (query -> answer); deploys the run; turns
the prediction log on in the Predictions tab; sends three predictions from "Use it";
in the Predictions tab marks one Right and one Wrong with the bare city typed as its
correction; adds the reviewed ones to the dataset as a new version; sees that
version and its diff (two rows added, the correction among them) on the datasets
page; and starts a run on that version from the run form (one epoch), which succeeds,
its page saying it trained and tested on version 2. Fails on any console error; screenshots go to
tests/browser/artifacts/.

Run: ``cd frontend && npm run build`` then
``.venv/bin/pytest tests/browser/test_prediction_loop.py -m browser``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from tests.browser.conftest import ARTIFACTS, BROWSER_MARKS, selected, watch_console
from tests.studio.realtime.live_stack import LiveStack

USERNAME, PASSWORD = "reviewer", "a long enough passphrase"
DATASET = "capital questions"
UPLOADED = ["Italy", "Spain", "Portugal", "Austria", "Poland", "Greece"]
ASKED = {"France": "Paris", "Japan": "Tokyo", "Kenya": "Nairobi"}
VIEW = {"width": 1280, "height": 800}

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed"
)

pytestmark = BROWSER_MARKS

# Runs in the stack's environment (manage.py shell): a user, a provider calling the
# scripted server, and a succeeded run of the untrained capitals program.
SEED = """
import json
from django.contrib.auth import get_user_model
from tests.studio.deployments.factories import make_provider, make_run
user = get_user_model().objects.create_user({username!r}, password={password!r})
provider = make_provider(user, {base_url!r})
run = make_run(user, provider, trained=False, name="untrained")
print(json.dumps({{"run": run.pk, "program": run.program_version.program_id}}))
"""


def _csv(countries: list[str]) -> str:
    questions, answers, _ = capitals_task()
    cities = {q["query"]: a["answer"] for q, a in zip(questions, answers, strict=True)}
    lines = ["query,answer"]
    for country in countries:
        query = f"What is the capital of {country}?"
        lines.append(f'"{query}",{cities[query]}')
    return "\n".join(lines) + "\n"


def _option_value(select: Any, text: str) -> str:
    """The value of `select`'s option whose text starts with `text`."""
    option = select.locator("option", has_text=re.compile("^" + re.escape(text)))
    return str(option.get_attribute("value"))


@pytest.mark.timeout(600)
def test_review_predictions_into_a_new_dataset_version_and_train_on_it(
    bare_stack: LiveStack, capitals_server: ScriptedServer, browser: Any, tmp_path: Path
) -> None:
    expect = playwright_api.expect
    code = SEED.format(username=USERNAME, password=PASSWORD, base_url=capitals_server.base_url)
    seeded = json.loads(bare_stack.manage("shell", "-c", code).strip().splitlines()[-1])
    base = f"http://127.0.0.1:{bare_stack.port}"
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport=VIEW, base_url=base)
    page = context.new_page()
    page.set_default_timeout(20_000)
    console_errors = watch_console(page)

    # Sign in, then upload the dataset the reviewed predictions will go into.
    page.goto("/datasets")
    page.get_by_label("Username").fill(USERNAME)
    page.get_by_label("Password").fill(PASSWORD)
    page.keyboard.press("Enter")
    data = tmp_path / "capitals.csv"
    data.write_text(_csv(UPLOADED))
    page.get_by_label("Dataset file").set_input_files(str(data))
    preview = page.get_by_role("table", name="Preview of the mapped rows")
    expect(preview).to_contain_text('{"query":"What is the capital of Italy?"}')
    page.get_by_label("Name", exact=True).fill(DATASET)
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.get_by_test_id("dataset-status")).to_have_text("valid", timeout=30_000)
    versions = page.get_by_role("table", name="Dataset versions")
    expect(versions.locator("tbody tr")).to_have_count(1)

    # Deploy the succeeded run from its page.
    page.goto(f"/runs/{seeded['run']}")
    expect(page.get_by_test_id("run-state")).to_have_text("succeeded")
    page.get_by_role("link", name="Deploy", exact=True).click()
    page.get_by_label("Name", exact=True).fill("capitals")
    page.get_by_role("button", name="Deploy", exact=True).click()
    expect(page).to_have_url(re.compile(r"/deployments/capitals$"))

    # The Predictions tab: nothing kept until logging is turned on.
    page.get_by_role("tab", name="Predictions").click()
    log_state = page.get_by_test_id("log-state")
    expect(log_state).to_contain_text("Predictions are not kept.")
    logging = page.get_by_role("form", name="Logging")
    logging.get_by_role("checkbox", name="Keep predictions").check()
    logging.get_by_role("button", name="Save").click()
    expect(log_state).to_contain_text("Keeping 100% of predictions")

    # Three predictions from "Use it".
    page.get_by_role("tab", name="Use it").click()
    output = page.get_by_test_id("predict-output")
    for country, city in ASKED.items():
        page.get_by_label("Input", exact=True).fill(
            json.dumps({"query": f"What is the capital of {country}?"})
        )
        page.get_by_role("button", name="Send").click()
        # The web process imports litellm on its first model call: seconds.
        expect(output).to_contain_text(city, timeout=60_000)

    # The Predictions tab lists the three, none reviewed.
    page.get_by_role("tab", name="Predictions").click()
    table = page.get_by_role("table", name="Predictions")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)
    for country in ASKED:
        expect(rows.filter(has_text=country)).to_have_count(1)
    expect(rows.filter(has_text="—")).to_have_count(3)

    # Japan's answer: Right.
    rows.filter(has_text="Japan").locator("td").nth(3).click()
    review = page.get_by_role("region", name=re.compile(r"^Prediction \d+$"))
    expect(review.get_by_test_id("review-input")).to_contain_text("Japan")
    review.get_by_role("button", name="Right", exact=True).click()
    expect(review.get_by_test_id("review-verdict")).to_have_text("right")
    expect(rows.filter(has_text="Japan")).to_contain_text("right")

    # France's answer: Wrong, with the bare city as its correction.
    rows.filter(has_text="France").locator("td").nth(3).click()
    expect(review.get_by_test_id("review-input")).to_contain_text("France")
    review.get_by_label("answer", exact=True).fill("Paris")
    review.get_by_role("button", name="Wrong", exact=True).click()
    expect(review.get_by_test_id("review-verdict")).to_have_text("wrong")
    expect(rows.filter(has_text="France")).to_contain_text("wrong (corrected)")
    expect(rows.filter(has_text="Kenya")).to_contain_text("—")
    page.screenshot(path=str(ARTIFACTS / "predictions-reviewed.png"))

    # Add the reviewed ones to the dataset: a new version of it, two rows added.
    into = page.get_by_role("form", name="Add to dataset")
    picker = into.get_by_label("Dataset", exact=True)
    picker.select_option(_option_value(picker, f"{DATASET} (6 rows)"))
    into.get_by_label("Message", exact=True).fill("Reviewed predictions")
    into.get_by_role("button", name="Add", exact=True).click()
    result = into.get_by_test_id("to-dataset-result")
    expect(result).to_contain_text(f"Version 2 of {DATASET}: 8 rows (2 added")

    # The datasets page: version 2, its diff against version 1, the correction in it.
    result.get_by_role("link", name="Open the datasets").click()
    expect(page).to_have_url(re.compile(r"/datasets"))
    page.get_by_role("region", name="Your datasets").get_by_role(
        "button", name=re.compile(re.escape(DATASET))
    ).click()
    versions = page.get_by_role("table", name="Dataset versions")
    expect(versions.locator("tbody tr")).to_have_count(2)
    newest = versions.locator("tbody tr").first
    expect(newest).to_contain_text("v2")
    expect(newest).to_contain_text("+2 −0 ~0")
    expect(newest).to_contain_text("Reviewed predictions")
    diff = page.get_by_test_id("version-diff")
    expect(diff).to_contain_text("Version 2 against version 1: 2 added, 0 removed, 0 changed")
    added = diff.get_by_role("table", name="Added").locator("tbody tr")
    expect(added).to_have_count(2)
    expect(added.filter(has_text="France")).to_contain_text('{"answer":"Paris"}')
    expect(added.filter(has_text="Japan")).to_contain_text("Tokyo")
    diff.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dataset-version-diff.png"))

    # A run on version 2 of the dataset, one small epoch, from the run form.
    page.goto(f"/runs/new?program={seeded['program']}")
    dataset_select = page.get_by_label("Dataset", exact=True)
    dataset_select.select_option(_option_value(dataset_select, f"{DATASET} ("))
    version_select = page.get_by_label("Dataset version", exact=True)
    expect(version_select.locator("option")).to_have_count(2)
    version_select.select_option(_option_value(version_select, "v2"))
    expect(version_select).to_have_value("2")
    assert selected(version_select) == "v2 — Reviewed predictions (8 rows)"
    page.get_by_label("Epochs").fill("1")
    page.get_by_label("Batch size").fill("2")
    page.get_by_label("Evaluations (before / after)").fill("1")
    page.get_by_role("button", name="Start run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    run_id = int(page.url.rsplit("/", 1)[1])
    state = page.get_by_test_id("run-state")
    expect(state).to_have_text(re.compile("^(succeeded|failed|cancelled)$"), timeout=180_000)
    run = context.request.get(f"/api/runs/{run_id}/").json()
    assert state.inner_text() == "succeeded", (
        f"run {run_id}: {run.get('error')!r}\n{bare_stack.logs()}"
    )
    expect(page.get_by_test_id("run-dataset")).to_have_text(
        f"Trained and tested on {DATASET}, version 2."
    )
    page.screenshot(path=str(ARTIFACTS / "run-on-new-version.png"))
    context.close()
    assert console_errors == []
