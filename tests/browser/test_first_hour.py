"""A newcomer's first hour, in a real browser, on the bundled model.

Signs up (no account made beforehand), uploads a small CSV with one bad row after
looking at its mapped preview and asking to keep the valid rows, saves the editor's
starter program and leaves an unsaved edit (the draft is offered after a reload),
then trains on the bundled local model, the provider a new account starts with: the
evaluation before training counts its rows, the LM usage grows with every batch
before the first epoch ends, and Cancel says "cancelling" at once, then "cancelled".

The bundled model (SmolLM2-135M under llama.cpp) is slow on a small machine, so the
run is as small as it can be and is cancelled once the batches have been seen.
Screenshots of each changed page go to tests/browser/artifacts/ (clipped to stay small).

Run: ``cd frontend && npm run build`` then
``.venv/bin/pytest tests/browser/test_first_hour.py -m browser``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optimizer_core.local_models import bundled_model_missing
from optimizer_core.testing.students import capitals_task
from tests.browser.conftest import ARTIFACTS, BROWSER_MARKS, ROOT, watch_console
from tests.studio.realtime.live_stack import LiveStack

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed"
)


pytestmark = [
    *BROWSER_MARKS,
    pytest.mark.skipif(bundled_model_missing() is not None, reason=bundled_model_missing() or ""),
]

USERNAME, PASSWORD = "first-hour", "a long enough passphrase"
VIEW = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    workdir = tmp_path_factory.mktemp("studio")
    live = LiveStack(
        {
            "STUDIO_FRONTEND_DIST": str(ROOT / "frontend" / "dist"),
            "STUDIO_OPEN_REGISTRATION": "true",
            "STUDIO_STARTER_PROVIDER": "true",
        },
        workdir,
    )
    with live.running():
        yield live


def _csv(rows: list[tuple[str, str]]) -> str:
    lines = ["query,answer"]
    for index, (query, answer) in enumerate(rows):
        lines.append(f'"{query}",{answer}')
        if index == 1:
            lines.append('"What is the capital of Atlantis?",Poseidonia,sunken')  # 3 values
    return "\n".join(lines) + "\n"


def test_a_newcomer_signs_up_and_trains_on_the_bundled_model(
    stack: LiveStack, browser: Any, tmp_path: Path
) -> None:
    expect = playwright_api.expect
    questions, answers, _ = capitals_task()
    rows = [(q["query"], a["answer"]) for q, a in zip(questions, answers, strict=True)][:20]
    base = f"http://127.0.0.1:{stack.port}"
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport=VIEW, base_url=base)
    page = context.new_page()
    page.set_default_timeout(20_000)
    console_errors = watch_console(page)
    # Leaving the editor with a draft asks first (beforeunload): say yes.
    page.on("dialog", lambda dialog: dialog.accept())

    def shot(name: str, height: int = 620) -> None:
        page.screenshot(
            path=str(ARTIFACTS / name), clip={"x": 0, "y": 0, "width": 1280, "height": height}
        )

    # Sign up: no account exists; the new one starts signed in.
    page.goto("/signup")
    page.get_by_label("Username").fill(USERNAME)
    page.get_by_label("Password").fill(PASSWORD)
    shot("signup.png", 520)
    page.get_by_role("button", name="Sign up").click()
    expect(page).not_to_have_url(re.compile(r"/signup"))

    # Upload: the mapped preview shows before anything is sent, the bad row marked.
    page.goto("/datasets")
    data = tmp_path / "capitals.csv"
    data.write_text(_csv(rows))
    page.get_by_label("Dataset file").set_input_files(str(data))
    preview = page.get_by_role("table", name="Preview of the mapped rows")
    expect(preview).to_contain_text('{"query":"What is the capital of France?"}')
    expect(preview).to_contain_text("3 values, but the header has 2 columns")
    page.get_by_label("Name", exact=True).fill("capitals")
    page.get_by_role("checkbox", name=re.compile("Keep the valid rows")).check()
    preview.evaluate("table => table.scrollIntoView({block: 'center'})")
    page.screenshot(path=str(ARTIFACTS / "datasets-upload-preview.png"))
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.get_by_test_id("dataset-status")).to_have_text("valid", timeout=30_000)
    expect(page.get_by_test_id("dataset-dropped")).to_contain_text("1 row dropped (line 4)")
    expect(page.get_by_role("table", name="Row errors")).to_contain_text("Poseidonia,sunken")

    # The editor's starter program, saved; an unsaved edit is offered back after a reload.
    page.goto("/editor")
    expect(page.get_by_text("Valid program")).to_be_visible()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page).to_have_url(re.compile(r"/editor/\d+$"))
    expect(page.get_by_text("v1", exact=True)).to_be_visible()
    program_id = page.url.rsplit("/", 1)[1]
    page.locator('[aria-label^="Generator generator,"]').click()
    instructions = page.get_by_label("Instructions", exact=True)
    instructions.fill("Answer with the capital city's name only.")
    instructions.press("Tab")
    page.wait_for_timeout(1_000)  # the draft is written once the canvas rests
    page.reload()
    draft = page.get_by_role("region", name="Unsaved draft")
    expect(draft.get_by_role("button", name="Restore draft")).to_be_visible()
    shot("editor-draft.png", 420)
    draft.get_by_role("button", name="Discard").click()

    # A run on the bundled model, the account's default provider: nothing to set up.
    page.goto(f"/runs/new?program={program_id}")
    expect(page.get_by_label("Provider", exact=True)).to_contain_text("Bundled local model")
    page.get_by_label("Epochs").fill("1")
    page.get_by_label("Batch size").fill("2")
    page.get_by_label("Evaluations (before / after)").fill("1")
    # No run of theirs measured the bundled model yet: the form still says how long.
    expect(page.get_by_test_id("estimate-duration")).to_contain_text("the bundled model's pace")
    page.get_by_role("button", name="Start run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))

    # The evaluation before training counts its 4 test rows (in batches of 2).
    progress = page.get_by_test_id("run-progress")
    expect(progress).to_have_text(
        re.compile(r"Evaluating before training: [0-4] of 4 rows"), timeout=60_000
    )
    expect(page.get_by_role("progressbar", name="Evaluation progress")).to_be_visible()
    shot("run-evaluating.png", 360)  # and again at 2 rows, when seen
    counted: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = progress.inner_text()
        if not text.startswith("Evaluating before training"):
            break
        if not counted or text != counted[-1]:
            counted.append(text)
            if "2 of 4 rows" in text:
                shot("run-evaluating.png", 360)
        page.wait_for_timeout(50)

    # Usage grows with every batch, before the first (only) epoch ends.
    calls = page.get_by_test_id("usage-calls")
    chart = page.get_by_test_id("chart-reward")
    seen: list[int] = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and len(set(seen)) < 2:
        if re.match(r"Epoch 1 of 1, batch \d+", progress.inner_text()):
            assert chart.count() == 0, "the epoch ended before two batches were seen"
            value = int(calls.inner_text().replace(",", ""))
            if value and (not seen or value != seen[-1]):
                seen.append(value)
        page.wait_for_timeout(100)
    assert len(set(seen)) >= 2 and seen == sorted(seen), f"LM calls seen per batch: {seen}"
    expect(page.get_by_test_id("usage-pending")).to_have_count(0)
    shot("run-usage.png", 620)

    # Cancel: "cancelling" at once, then the worker stops and says "cancelled".
    page.get_by_role("button", name="Cancel", exact=True).click()
    expect(page.get_by_test_id("run-state")).to_have_text("cancelling", timeout=2_000)
    shot("run-cancelling.png", 360)
    expect(page.get_by_test_id("run-state")).to_have_text("cancelled", timeout=60_000)
    expect(progress).to_contain_text("Stopped")

    context.close()
    assert console_errors == []
