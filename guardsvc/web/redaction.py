"""Keeping secrets out of logs: tokens, one-time links and codes are masked before a line is written.

What is secret here is random and URL-safe: personal access tokens
(``gsv_...``), the secret of a one-time link in a path or an e-mail, the
Fernet form of a TOTP secret. A run of 24 or more URL-safe characters is
masked; no word a person writes, no IP address and no route of the service
is that long. Whatever follows a path that carries a secret (a private ticket
link, a password-reset link) is masked whatever its length.
"""
import re

SECRET_LIKE = re.compile(r"[A-Za-z0-9_-]{24,}={0,2}")
SECRET_PATHS = re.compile(r"(/banding/tiket/|/masuk/atur-ulang/)[^/?#\s\"]+")
MASK = "[redacted]"


def redact(text):
    """``text`` with every secret-carrying path and every secret-like run masked as ``[redacted]``."""
    if not isinstance(text, str):
        return text
    return SECRET_LIKE.sub(MASK, SECRET_PATHS.sub(r"\1" + MASK, text))
