"""gunicorn's access log without secrets: one-time links and tokens in access lines are masked.

The server configuration (guardsvc/gunicorn_conf.py) makes it gunicorn's logger class. With
``GUARDSVC_LOG_FORMAT=json`` each access line is a JSON object carrying the request id the
application echoed in ``X-Request-Id``.
"""
import re
from types import SimpleNamespace

from gunicorn.glogging import Logger

from guardsvc.config import log_format
from guardsvc.web.redaction import redact
from guardsvc.web.request_logs import HEADER, json_line


# The atoms a JSON access line carries (``access`` below).
JSON_ATOMS = ("m", "U", "q", "s", "B", "h", "a")
_FORMAT_ATOMS = re.compile(r"%\(([^)]+)\)")
# What gunicorn's own atoms read from the environ (the user atom reads the Authorization header).
_BASE_ENVIRON = ("REMOTE_ADDR", "REQUEST_METHOD", "RAW_URI", "SERVER_PROTOCOL", "PATH_INFO", "QUERY_STRING",
                 "HTTP_REFERER", "HTTP_USER_AGENT", "HTTP_AUTHORIZATION")


class RedactingLogger(Logger):
    """Masks secret-like runs in every part of an access line (request line, path, query, headers).

    Only the atoms the line is made of are masked (and kept): gunicorn offers every request and
    response header and every environ variable as an atom, about seventy values a request, and
    masking each of them was a tenth of a status check's time.
    """

    _json = None
    _wanted = None

    def atoms(self, resp, req, environ, request_time):
        used, headers_used = self._atoms_used()
        if not headers_used:
            # gunicorn offers every header and environ variable as an atom: a line that names none
            # gets the request's own atoms from the few environ keys they are made of.
            environ = {key: environ[key] for key in _BASE_ENVIRON if key in environ}
            resp, req = SimpleNamespace(status=resp.status, sent=getattr(resp, "sent", None), headers=()), ()
        atoms = super().atoms(resp, req, environ, request_time)
        return {name: redact(atoms[name]) for name in used if name in atoms}

    def _atoms_used(self):
        wanted = self._wanted
        if wanted is None or wanted[0] != self.cfg.access_log_format:
            names = {name.lower() if name.startswith("{") else name
                     for name in _FORMAT_ATOMS.findall(self.cfg.access_log_format or "")}
            wanted = self._wanted = (self.cfg.access_log_format, tuple(names | set(JSON_ATOMS)),
                                     any(name.startswith("{") for name in names))
        return wanted[1:]

    def access(self, resp, req, environ, request_time):
        if self._json is None:
            self._json = log_format() == "json"  # read once: the settings of a process do not change
        if not self._json:
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
