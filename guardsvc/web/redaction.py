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
SECRET_PATH_PREFIXES = ("/banding/tiket/", "/masuk/atur-ulang/")
SECRET_PATHS = re.compile("(" + "|".join(map(re.escape, SECRET_PATH_PREFIXES)) + r")[^/?#\s\"]+")
MASK = "[redacted]"
# Neither pattern matches a text shorter than this: a secret-like run, or a path prefix and one character.
SHORTEST_SECRET = min(24, *(len(prefix) + 1 for prefix in SECRET_PATH_PREFIXES))


def redact(text):
    """``text`` with every secret-carrying path and every secret-like run masked as ``[redacted]``.

    Most of what is logged (an address, a status, a short path) is shorter than any secret, and most
    lines name no secret-carrying path: those are answered without running the patterns over them.
    """
    if not isinstance(text, str) or len(text) < SHORTEST_SECRET:
        return text
    for prefix in SECRET_PATH_PREFIXES:
        if prefix in text:
            text = SECRET_PATHS.sub(r"\1" + MASK, text)
            break
    return SECRET_LIKE.sub(MASK, text)
