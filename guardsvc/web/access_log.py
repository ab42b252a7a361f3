"""gunicorn's access log without secrets: one-time links and tokens in access lines are masked.

Used by ``scripts/run`` (``--logger-class guardsvc.web.access_log.RedactingLogger``).
"""
from gunicorn.glogging import Logger

from guardsvc.web.redaction import redact


class RedactingLogger(Logger):
    """Masks secret-like runs in every part of an access line (request line, path, query, headers)."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {name: redact(value) for name, value in atoms.items()}
