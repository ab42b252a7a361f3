"""gunicorn's access log without secrets: one-time links and tokens in access lines are masked.

The server configuration (guardsvc/gunicorn_conf.py) makes it gunicorn's logger class. With
``GUARDSVC_LOG_FORMAT=json`` each access line is a JSON object carrying the request id the
application echoed in ``X-Request-Id``.
"""
import os
import re

from gunicorn.glogging import Logger

from guardsvc.config import log_format
from guardsvc.web.redaction import redact
from guardsvc.web.request_logs import HEADER, json_line


# The atoms a JSON access line carries (``access`` below).
JSON_ATOMS = ("m", "U", "q", "s", "B", "h", "a")
_FORMAT_ATOMS = re.compile(r"%\(([^)]+)\)")


def _status(resp):
    status = resp.status
    return status.split(None, 1)[0] if isinstance(status, str) else status


def _sent(resp):
    return getattr(resp, "sent", None)


# gunicorn's own atoms (``Logger.atoms``), each computed alone: a line is made of a few of them, and
# gunicorn computes all of them, and every header and environ variable, for every request.
_REQUEST_ATOMS = {
    "h": lambda logger, resp, environ, took: environ.get("REMOTE_ADDR", "-"),
    "l": lambda logger, resp, environ, took: "-",
    "u": lambda logger, resp, environ, took: logger._get_user(environ) or "-",
    "t": lambda logger, resp, environ, took: logger.now(),
    "r": lambda logger, resp, environ, took: "%s %s %s" % (environ["REQUEST_METHOD"], environ["RAW_URI"],
                                                           environ["SERVER_PROTOCOL"]),
    "s": lambda logger, resp, environ, took: _status(resp),
    "m": lambda logger, resp, environ, took: environ.get("REQUEST_METHOD"),
    "U": lambda logger, resp, environ, took: environ.get("PATH_INFO"),
    "q": lambda logger, resp, environ, took: environ.get("QUERY_STRING"),
    "H": lambda logger, resp, environ, took: environ.get("SERVER_PROTOCOL"),
    "b": lambda logger, resp, environ, took: _sent(resp) is not None and str(resp.sent) or "-",
    "B": lambda logger, resp, environ, took: _sent(resp),
    "f": lambda logger, resp, environ, took: environ.get("HTTP_REFERER", "-"),
    "a": lambda logger, resp, environ, took: environ.get("HTTP_USER_AGENT", "-"),
    "T": lambda logger, resp, environ, took: took.seconds,
    "D": lambda logger, resp, environ, took: took.seconds * 1000000 + took.microseconds,
    "M": lambda logger, resp, environ, took: took.seconds * 1000 + int(took.microseconds / 1000),
    "L": lambda logger, resp, environ, took: "%d.%06d" % (took.seconds, took.microseconds),
    "p": lambda logger, resp, environ, took: "<%s>" % os.getpid(),
}


class RedactingLogger(Logger):
    """Masks secret-like runs in every part of an access line (request line, path, query, headers).

    Only the atoms the line is made of are computed and masked: gunicorn offers every request and
    response header and every environ variable as an atom, about seventy values a request, and
    computing and masking each of them was a tenth of a status check's time. A line that names a
    header or environ atom gets gunicorn's whole set, masked as the line uses it.
    """

    _json = None
    _wanted = None

    def atoms(self, resp, req, environ, request_time):
        used, headers_used = self._atoms_used()
        if headers_used:
            atoms = super().atoms(resp, req, environ, request_time)
            return {name: redact(atoms[name]) for name in used if name in atoms}
        return {name: redact(_REQUEST_ATOMS[name](self, resp, environ, request_time))
                for name in used if name in _REQUEST_ATOMS}

    def _atoms_used(self):
        wanted = self._wanted
        if wanted is None or wanted[0] != self.cfg.access_log_format:
            names = {name.lower() if name.startswith("{") else name
                     for name in _FORMAT_ATOMS.findall(self.cfg.access_log_format or "")}
            if self._json_lines():
                names |= set(JSON_ATOMS)
            wanted = self._wanted = (self.cfg.access_log_format, tuple(names),
                                     any(name.startswith("{") for name in names))
        return wanted[1:]

    def _json_lines(self):
        if self._json is None:
            self._json = log_format() == "json"  # read once: the settings of a process do not change
        return self._json

    def access(self, resp, req, environ, request_time):
        if not self._json_lines():
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
