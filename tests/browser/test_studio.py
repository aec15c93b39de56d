"""Studio in a real browser, as a new user meets it.

Starts the real stack (daphne serving the API, the websocket and the built app from
frontend/dist, plus a Celery worker) and a scripted OpenAI-compatible server playing a
student that learns from good few-shot examples, then drives Debian's chromium with
Playwright: sign in, upload a CSV with a bad row and see the error, upload the corrected
file, build Input -> Generator on the canvas and save it, start a run and watch its epoch
points arrive, start a second run, and compare both.

Screenshots of each page go to tests/browser/artifacts/; after a passing run the editor and
compare screenshots are copied to docs/img/ for the README.

Run: ``cd frontend && npm run build`` then ``.venv/bin/pytest tests/browser -m browser``.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optimizer_core.testing.scripted_server import ScriptedServer
from optimizer_core.testing.students import capitals_task
from tests.browser.conftest import ARTIFACTS, BROWSER_MARKS, ROOT, watch_console
from tests.studio.realtime.live_stack import LiveStack

README_IMAGES = {"editor.png": "editor.png", "compare.png": "compare.png"}
RUN_DONE_MS = 300_000
"""How long a run on the scripted student may take to succeed: about 15 s alone, and over
120 s was seen on 2 cores that a benchmark and the bundled model kept busy."""
USERNAME, PASSWORD = "newcomer", "a long enough passphrase"

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed"
)

pytestmark = BROWSER_MARKS


def _csv(rows: list[tuple[str, str]], *, bad_line_after: int | None = None) -> str:
    lines = ["query,answer"]
    for index, (query, answer) in enumerate(rows):
        lines.append(f'"{query}",{answer}')
        if bad_line_after == index:
            lines.append('"What is the capital of Atlantis?",Poseidonia,sunken')  # 3 values
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def capitals() -> tuple[list[tuple[str, str]], Any]:
    questions, answers, student = capitals_task()
    rows = [(q["query"], a["answer"]) for q, a in zip(questions, answers, strict=True)]
    return rows, student


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    workdir = tmp_path_factory.mktemp("studio")
    live = LiveStack({"STUDIO_FRONTEND_DIST": str(ROOT / "frontend" / "dist")}, workdir)
    with live.running():
        live.manage(
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model; "
            f"get_user_model().objects.create_user({USERNAME!r}, password={PASSWORD!r})",
        )
        yield live


@pytest.fixture(scope="module")
def model_server(capitals: tuple[list[tuple[str, str]], Any]) -> Iterator[ScriptedServer]:
    _, student = capitals
    server = ScriptedServer(student.from_request, latency=0.15).start_in_thread()
    try:
        yield server
    finally:
        server.stop()


def test_a_new_user_trains_and_compares(
    stack: LiveStack,
    model_server: ScriptedServer,
    browser: Any,
    capitals: tuple[list[tuple[str, str]], Any],
    tmp_path: Path,
) -> None:
    expect = playwright_api.expect
    rows, _ = capitals
    base = f"http://127.0.0.1:{stack.port}"
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=base)
    page = context.new_page()
    page.set_default_timeout(20_000)

    console_errors = watch_console(page)

    def shot(name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / name))

    # Sign in: any page sends a stranger to the sign-in form, and back after.
    page.goto("/datasets")
    expect(page).to_have_url(re.compile(r"/login\?next=%2Fdatasets"))
    # Keyboard only: the username field has the focus, Tab moves on, Enter submits.
    expect(page.get_by_label("Username")).to_be_focused()
    page.keyboard.type(USERNAME)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    shot("login.png")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Datasets", exact=True)).to_be_visible()

    # Upload a CSV with one bad row: the worker's row error shows with its line.
    bad = tmp_path / "capitals-bad.csv"
    bad.write_text(_csv(rows, bad_line_after=4))
    page.get_by_label("Dataset file").set_input_files(str(bad))
    expect(page.get_by_label("query", exact=True)).to_have_value("query")
    page.get_by_label("Name", exact=True).fill("capitals (draft)")
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.get_by_test_id("dataset-status")).to_have_text("invalid", timeout=30_000)
    errors = page.get_by_role("table", name="Row errors")
    expect(errors).to_contain_text("7")  # header is line 1, the bad row follows five good ones
    expect(errors).to_contain_text("values but the header has")
    shot("datasets-error.png")

    # Fix it: upload the corrected file.
    good = tmp_path / "capitals.csv"
    good.write_text(_csv(rows))
    page.get_by_label("Dataset file").set_input_files(str(good))
    page.get_by_label("Name", exact=True).fill("capitals")
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.get_by_role("region", name="Dataset capitals")).to_be_visible()
    expect(page.get_by_test_id("dataset-status")).to_have_text("valid", timeout=30_000)
    expect(page.get_by_role("table", name="Version rows", exact=True)).to_contain_text("Paris")
    shot("datasets.png")

    # Build Input -> Generator on the canvas, and save it (version 1).
    page.get_by_role("link", name="Editor").click()
    canvas = page.get_by_label("Program canvas")
    expect(canvas).to_be_visible()
    for label in ("Generator generator", "Input input_layer"):
        page.locator(f'[aria-label^="{label},"]').click()
        page.keyboard.press("Delete")
    expect(page.locator(".react-flow__node")).to_have_count(0)
    page.get_by_role("button", name="Add Input").click()
    page.get_by_role("button", name="Add Generator").click()  # follows the selected Input
    expect(page.locator(".react-flow__node")).to_have_count(2)
    expect(page.locator(".react-flow__edge")).to_have_count(1)
    expect(page.get_by_text("Valid program")).to_be_visible()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page).to_have_url(re.compile(r"/editor/\d+$"))
    expect(page.get_by_text("v1", exact=True)).to_be_visible()
    program_id = page.url.rsplit("/", 1)[1]
    page.get_by_role("button", name="Fit view", exact=True).click()
    page.wait_for_timeout(400)
    shot("editor.png")

    # Every save is a new version; the history shows what changed between two.
    page.locator('[aria-label^="Generator generator,"]').click()
    instructions = page.get_by_label("Instructions", exact=True)
    instructions.fill("Answer with the capital city's name only.")
    instructions.press("Tab")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("v2", exact=True)).to_be_visible()
    page.get_by_role("button", name="History").click()
    history = page.get_by_role("dialog", name="Version history")
    expect(history.get_by_role("region", name="Diff")).to_contain_text("instructions")
    expect(history).to_contain_text("capital city's name only")
    shot("editor-history.png")
    history.get_by_role("button", name="Close").click()

    # The programs list exports a version as a file, and imports it back as a new program.
    page.get_by_role("link", name="Programs").click()
    programs = page.get_by_role("table")
    expect(programs).to_contain_text("my_program")
    shot("programs.png")
    with page.expect_download() as exported:
        page.get_by_role("link", name="Export").click()
    exported_path = tmp_path / "my_program.json"
    exported.value.save_as(exported_path)
    page.get_by_label("Program file to import").set_input_files(str(exported_path))
    expect(page).not_to_have_url(re.compile(rf"/editor/{program_id}$"))
    expect(page).to_have_url(re.compile(r"/editor/\d+$"))
    expect(page.get_by_text("v1", exact=True)).to_be_visible()
    expect(page.locator(".react-flow__node")).to_have_count(2)

    # Start a run: a provider for the scripted server, 4 epochs.
    page.goto(f"/runs/new?program={program_id}")
    page.get_by_role("button", name="Add…").click()
    page.get_by_label("Name", exact=True).fill("scripted student")
    page.get_by_label("Model (litellm)").fill("openai/scripted")
    page.get_by_label("API base URL").fill(model_server.base_url)
    page.get_by_role("button", name="Add provider").click()
    expect(page.get_by_label("Provider", exact=True)).to_contain_text("scripted student")
    page.get_by_label("Epochs").fill("4")
    page.get_by_label("Batch size").fill("8")
    page.get_by_label("Validation split").fill("0.25")
    page.get_by_label("Evaluations (before / after)").fill("1")
    expect(page.get_by_test_id("estimate-total")).to_contain_text("≈")
    shot("run-setup.png")
    page.get_by_role("button", name="Start run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    first_run = page.url.rsplit("/", 1)[1]

    # Watch the epoch points arrive live over the websocket.
    chart = page.get_by_test_id("chart-reward")
    seen: list[int] = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        points = int(chart.get_attribute("data-points") or 0) if chart.count() else 0
        if not seen or points != seen[-1]:
            seen.append(points)
        if points >= 2:
            break
        page.wait_for_timeout(100)
    assert seen and seen[-1] >= 2, f"epoch points seen: {seen}"
    assert seen[0] < seen[-1], f"no epoch arrived while the page watched: {seen}"
    expect(page.get_by_text("live", exact=True)).to_be_visible()
    shot("run-live.png")
    expect(page.get_by_test_id("run-state")).to_have_text("succeeded", timeout=RUN_DONE_MS)
    expect(page.get_by_test_id("usage-calls")).not_to_have_text("0")
    shot("run-done.png")

    # Fork the run from its epoch-2 checkpoint: a new run that trains the last two epochs.
    page.get_by_label("Fork from epoch").select_option("2")
    page.get_by_role("button", name="Fork").click()
    expect(page).not_to_have_url(re.compile(rf"/runs/{first_run}$"))
    expect(page.get_by_test_id("run-state")).to_have_text("succeeded", timeout=RUN_DONE_MS)

    # A second run with fewer epochs, to compare against.
    page.goto(f"/runs/new?program={program_id}")
    page.get_by_label("Run name").fill("two epochs")
    page.get_by_label("Epochs").fill("2")
    page.get_by_label("Batch size").fill("8")
    page.get_by_label("Evaluations (before / after)").fill("1")
    page.get_by_role("button", name="Start run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    second_run = page.url.rsplit("/", 1)[1]
    expect(page.get_by_test_id("run-state")).to_have_text("succeeded", timeout=RUN_DONE_MS)

    page.get_by_role("link", name="Runs", exact=True).click()
    expect(page.get_by_role("table", name="Runs")).to_contain_text("two epochs")
    shot("runs.png")

    # Compare: both curves and the before / after bars.
    page.goto(f"/compare?ids={first_run},{second_run}")
    # Run 1 logged reward and val_reward, run 2 (no validation rows) reward only.
    expect(page.get_by_test_id("compare-curves")).to_have_attribute("data-series", "3")
    expect(page.get_by_test_id("compare-bars")).to_have_attribute("data-bars", "2")
    expect(page.get_by_role("table", name="Per-example results")).to_contain_text("Paris")
    page.wait_for_timeout(400)
    shot("compare.png")
    with page.expect_download() as png:
        page.get_by_role("button", name="PNG").first.click()
    assert png.value.suggested_filename == "curves-reward.png"
    assert Path(png.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with page.expect_download() as csv:
        page.get_by_role("button", name="CSV").click()
    table = Path(csv.value.path()).read_text()
    assert table.startswith(f"input,expected,#{first_run} output,#{first_run} reward,")
    assert len(table.strip().splitlines()) == 1 + 8  # the header and the 8 test rows

    # The providers page lists the provider added from the run form, as the default.
    page.get_by_role("link", name="Providers").click()
    providers = page.get_by_role("table", name="Providers")
    expect(providers).to_contain_text("scripted student")
    expect(providers).to_contain_text("default")
    shot("providers.png")

    # Try the program once on one input, from the editor: every module's output shows.
    page.goto(f"/editor/{program_id}")
    expect(page.get_by_text("v2", exact=True)).to_be_visible()
    page.get_by_role("button", name="Try it").click()
    trying = page.get_by_role("complementary", name="Try it")
    expect(trying.get_by_label("Try provider")).to_contain_text("scripted student")
    trying.get_by_label("query", exact=True).fill(rows[0][0])
    trying.get_by_role("button", name="Run", exact=True).click()
    traced = trying.get_by_role("region", name="Trace generator")
    expect(traced).to_contain_text('"answer"', timeout=30_000)
    expect(trying.get_by_test_id("try-stats")).to_contain_text(" s")
    expect(page.locator('[aria-label^="Generator generator,"]')).to_have_attribute("data-try", "ok")
    shot("editor-try.png")

    context.close()
    assert console_errors == []
    for name, target in README_IMAGES.items():
        (ROOT / "docs" / "img").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ARTIFACTS / name, ROOT / "docs" / "img" / target)
