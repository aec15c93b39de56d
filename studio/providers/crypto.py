"""Encryption at rest of provider API keys (Fernet: AES-128-CBC + HMAC-SHA256).

The key is ``settings.STUDIO_ENCRYPTION_KEY`` (a urlsafe-base64 Fernet key,
``Fernet.generate_key()``). Production settings require it. When it is empty
(local development), a key is derived from ``SECRET_KEY`` with HKDF-SHA256
(salt ``b"studio.providers.api-key"``, info ``b"fernet-v1"``, 32 bytes), so a
local install works out of the box; changing SECRET_KEY then makes stored keys
unreadable, and they must be entered again.
"""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from studio.providers.redaction import register_secret

_KDF_SALT = b"studio.providers.api-key"
_KDF_INFO = b"fernet-v1"


class DecryptionError(Exception):
    """A stored key cannot be decrypted (the encryption key changed)."""


def derive_key(secret: str) -> bytes:
    """The Fernet key derived from a secret (HKDF-SHA256, see the module docstring)."""
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=_KDF_SALT, info=_KDF_INFO).derive(
        secret.encode("utf-8")
    )
    return base64.urlsafe_b64encode(raw)


def _fernet() -> Fernet:
    configured = str(getattr(settings, "STUDIO_ENCRYPTION_KEY", "") or "")
    key = configured.encode("ascii") if configured else derive_key(str(settings.SECRET_KEY))
    try:
        return Fernet(key)
    except ValueError as error:
        raise ImproperlyConfigured(
            "STUDIO_ENCRYPTION_KEY must be a urlsafe-base64 32-byte Fernet key "
            f"(generate one with cryptography.fernet.Fernet.generate_key()): {error}"
        ) from None


def encrypt(plaintext: str) -> bytes:
    """Encrypt a secret; the empty string stays empty (no key)."""
    if not plaintext:
        return b""
    register_secret(plaintext)  # it came in clear: a log line of this request must not show it
    return _fernet().encrypt(plaintext.encode("utf-8"))


def decrypt(token: bytes | memoryview | None) -> str:
    """Decrypt what `encrypt` produced; empty for no key.

    The key is registered (`redaction.register_secret`), so logs never show it.

    Raises:
        DecryptionError: the token was made with another encryption key.
    """
    if not token:
        return ""
    try:
        plaintext = _fernet().decrypt(bytes(token)).decode("utf-8")
    except InvalidToken:
        raise DecryptionError(
            "the stored API key cannot be decrypted: STUDIO_ENCRYPTION_KEY (or SECRET_KEY) "
            "changed since it was saved; enter the key again"
        ) from None
    # From here on the key is in clear in this process: keep it out of every log line.
    register_secret(plaintext)
    return plaintext
