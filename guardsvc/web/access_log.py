"""gunicorn's access log without secrets: one-time links and tokens in access lines are masked.

The server configuration (guardsvc/gunicorn_conf.py) makes it gunicorn's logger class. With
``GUARDSVC_LOG_FORMAT=json`` each access line is a JSON object carrying the request id the
application echoed in ``X-Request-Id``.
"""
from gunicorn.glogging import Logger

from guardsvc.config import log_format
from guardsvc.web.redaction import redact
from guardsvc.web.request_logs import HEADER, json_line


class RedactingLogger(Logger):
    """Masks secret-like runs in every part of an access line (request line, path, query, headers)."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {name: redact(value) for name, value in atoms.items()}

    def access(self, resp, req, environ, request_time):
        if log_format() != "json":
            return super().access(resp, req, environ, request_time)
        if not self.cfg.accesslog:
            return None
        atoms = self.atoms(resp, req, environ, request_time)
        request_id = next((value for name, value in resp.headers if name.lower() == HEADER.lower()), "-")
        self.access_log.info(json_line(
            level="INFO", logger="gunicorn.access", request_id=request_id, method=atoms["m"],
            path=atoms["U"], query=atoms["q"], status=resp.status_code if hasattr(resp, "status_code")
            else atoms["s"], bytes=atoms["B"], duration_ms=round(request_time.total_seconds() * 1000, 1),
            remote_addr=atoms["h"], user_agent=atoms["a"]))
        return None
