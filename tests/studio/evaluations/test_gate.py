"""`python -m studio.gate` against a live studio: exit 1 on a regression, 0 otherwise, 2 undecided."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from studio import gate
from studio.evaluations import services
from studio.evaluations.execution import execute_evaluation
from tests.studio.runs.factories import make_dataset, make_provider, make_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.litellm]

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def studio(live_server, monkeypatch, user, good_server, worse_server) -> dict[str, Any]:
    """A live studio whose queue evaluates at once, and the ids and token the gate needs."""
    from studio.accounts.services import issue_token

    monkeypatch.setattr(services, "enqueue", lambda name, pk: execute_evaluation(pk))
    monkeypatch.setenv("STUDIO_TOKEN", issue_token(user))
    return {
        "url": live_server.url,
        "version": make_version(user).pk,
        "dataset": make_dataset(user, rows=40, test_fraction=0.5).pk,
        "good": make_provider(user, good_server.base_url).pk,
        "worse": make_provider(user, worse_server.base_url).pk,
    }


def run_gate(
    studio: dict[str, Any], candidate_provider: int, *extra: str, baseline_provider: int = 0
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "--url",
        studio["url"],
        "--candidate-version",
        str(studio["version"]),
        "--candidate-provider",
        str(candidate_provider),
        "--baseline-version",
        str(studio["version"]),
        "--baseline-provider",
        str(baseline_provider or studio["good"]),
        "--dataset",
        str(studio["dataset"]),
        "--poll-interval",
        "0.1",
        *extra,
    ]
    status = gate.main(argv, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_the_gate_fails_a_provider_made_worse_and_passes_the_same_one(studio):
    status, out, err = run_gate(studio, studio["worse"])
    assert status == gate.REGRESSION, err
    line = out.splitlines()[1]
    assert line.startswith("significant loss: -0.")
    assert "(95% CI -" in line and ", n=20, p=" in line
    assert "significant loss at n=20" in out

    status, out, err = run_gate(studio, studio["good"])
    assert status == gate.PASS, err
    assert out.splitlines()[1].startswith("no detectable change: +0.00")
    assert os.environ["STUDIO_TOKEN"] not in out + err


def test_a_significant_gain_passes(studio):
    status, out, err = run_gate(studio, studio["good"], baseline_provider=studio["worse"])
    assert status == gate.PASS, err
    assert out.splitlines()[1].startswith("significant gain: +0.")


def test_a_refused_request_prints_the_apis_message_and_exits_2(studio):
    status, _, err = run_gate(studio, studio["worse"], "--dataset-version", "9")
    assert status == gate.UNDECIDED
    assert "HTTP 400" in err and "dataset_version: dataset 'capitals' has no version 9" in err
    assert "Traceback" not in err


def test_a_wrong_token_exits_2(studio, monkeypatch):
    monkeypatch.setenv("STUDIO_TOKEN", "not-a-token")
    status, _, err = run_gate(studio, studio["worse"])
    assert status == gate.UNDECIDED and "Invalid token." in err and "not-a-token" not in err


def test_an_evaluation_that_never_finishes_times_out_with_2(studio, monkeypatch):
    monkeypatch.setattr(services, "enqueue", lambda name, pk: None)  # no worker
    status, _, err = run_gate(studio, studio["worse"], "--timeout", "0.3")
    assert status == gate.UNDECIDED and "still queued after 0.3 s" in err


def test_no_token_and_an_unreachable_studio_exit_2(monkeypatch, tmp_path):
    monkeypatch.delenv("STUDIO_TOKEN", raising=False)
    argv = ["--candidate-version", "1", "--baseline-version", "2", "--dataset", "3"]
    err = io.StringIO()
    assert gate.main(["--url", "http://127.0.0.1:9", *argv], err=err) == 2
    assert "no API token" in err.getvalue()

    token = tmp_path / "token"
    token.write_text("secret-token\n")
    err = io.StringIO()
    status = gate.main(["--url", "http://127.0.0.1:9", "--token-file", str(token), *argv], err=err)
    assert status == 2 and "cannot reach the studio" in err.getvalue()
    assert "secret-token" not in err.getvalue()


def test_the_gate_runs_on_a_bare_python_without_the_project():
    # -S: no site-packages (no Django, no Celery); -I: nothing from the environment.
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(ROOT / "studio" / "gate.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "--candidate-version" in done.stdout and "STUDIO_TOKEN" in done.stdout
