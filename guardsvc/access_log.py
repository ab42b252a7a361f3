"""gunicorn's access log without the secrets some paths carry.

A private ticket link (``/banding/tiket/<secret>``) and a password-reset link
(``/masuk/atur-ulang/<secret>``) are credentials: the access log shows that such
a page was asked for, never which secret. ``scripts/run`` passes
``--logger-class guardsvc.access_log.RedactingLogger``.
"""
import re

from gunicorn.glogging import Logger

SECRET_PATHS = re.compile(r"(/banding/tiket/|/masuk/atur-ulang/)[^/?#\s\"]+")
HIDDEN = r"\1[secret]"


def redact(text):
    """``text`` with the secret part of every secret-carrying path replaced."""
    return SECRET_PATHS.sub(HIDDEN, text)


class RedactingLogger(Logger):
    """The standard logger, with every text of an access-log line redacted."""

    def atoms(self, resp, req, environ, request_time):
        return {key: redact(value) if isinstance(value, str) else value
                for key, value in super().atoms(resp, req, environ, request_time).items()}
