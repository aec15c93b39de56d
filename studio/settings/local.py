"""The embedded default: one machine, nothing else running (SQLite, no broker server).

Debug stays off (base reads ``DJANGO_DEBUG``, default false): the embedded studio is
what people run, and a debug page would show settings and code to any visitor.
Set ``DJANGO_DEBUG=true`` yourself when developing.

The secret key (which signs sessions and, through HKDF, encrypts provider keys at
rest when ``STUDIO_ENCRYPTION_KEY`` is unset) is random per install: made on the
first start and kept in ``<var>/secret-key`` (mode 0600), never a constant in the
repository that anyone could read.
"""

import os
import secrets
import time
from pathlib import Path


def _install_secret() -> str:
    var_dir = Path(os.environ.get("STUDIO_VAR_DIR") or Path(__file__).resolve().parents[2] / "var")
    path = var_dir / "secret-key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        var_dir.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_urlsafe(50)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process of this studio is writing it now
            for _ in range(100):
                if secret := path.read_text().strip():
                    return secret
                time.sleep(0.01)
            raise
        with os.fdopen(fd, "w") as file:
            file.write(secret + "\n")
        return secret


if not os.environ.get("DJANGO_SECRET_KEY"):
    os.environ["DJANGO_SECRET_KEY"] = _install_secret()

from studio.settings.base import *  # noqa: E402, F403
from studio.settings.base import env  # noqa: E402

# One machine, its own users: anyone who reaches it may register, and the sign-in
# page names the demo account while it keeps its documented default password.
STUDIO_OPEN_REGISTRATION = env.bool("STUDIO_OPEN_REGISTRATION", default=True)
STUDIO_SHOW_DEMO_ACCOUNT = True
