"""Keeping secrets out of logs: tokens, one-time links and codes are masked before a line is written.

What is secret here is random and URL-safe: personal access tokens
(``gsv_...``), the secret of a one-time link in a path or an e-mail, the
Fernet form of a TOTP secret. A run of 24 or more URL-safe characters is
masked; no word a person writes, no IP address and no route of the service
is that long.
"""
import re

SECRET_LIKE = re.compile(r"[A-Za-z0-9_-]{24,}={0,2}")
MASK = "[redacted]"


def redact(text):
    """``text`` with every secret-like run replaced by ``[redacted]``."""
    return SECRET_LIKE.sub(MASK, text) if isinstance(text, str) else text
