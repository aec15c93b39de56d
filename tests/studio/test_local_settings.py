"""The embedded default's settings: no debug pages, a secret of its own per install."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _settings(var_dir: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    env.update(STUDIO_VAR_DIR=str(var_dir), DJANGO_SETTINGS_MODULE="studio.settings.local")
    code = "from django.conf import settings; print(settings.SECRET_KEY); print(settings.DEBUG)"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_each_install_gets_its_own_secret_kept_private(tmp_path: Path) -> None:
    first_key, debug = _settings(tmp_path / "a")
    again, _ = _settings(tmp_path / "a")
    other, _ = _settings(tmp_path / "b")

    assert debug == "False"
    assert first_key == again, "a restart must keep the key (sessions, encrypted provider keys)"
    assert first_key != other and len(first_key) >= 50
    mode = stat.S_IMODE((tmp_path / "a" / "secret-key").stat().st_mode)
    assert mode == 0o600
