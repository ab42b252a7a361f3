"""Logs that follow one request: a request id on every line, and one JSON object a line on demand.

The id comes from ``X-Request-Id`` when a proxy sent a usable one, else it is
made here; it is echoed in the response and carried by every application log
line of that request (gunicorn's access line reads it from the response).
``GUARDSVC_LOG_FORMAT=json`` writes application and access lines as JSON
objects; either way one-time links and secrets are masked (web/redaction.py).
"""
import json
import logging
import os
import re
from datetime import datetime, timezone

from flask import g, has_request_context

from guardsvc.web.redaction import redact
from guardsvc.web.headers import request_header

HEADER = "X-Request-Id"
_USABLE = re.compile(r"\A[A-Za-z0-9._:-]{1,64}\Z")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"


def assign_request_id():
    """before_request: the proxy's id when it is usable, else a new one."""
    sent = request_header(HEADER, "")
    # 32 random hex digits, as uuid4().hex gave, without building a UUID on every request.
    g.request_id = sent if _USABLE.match(sent) else os.urandom(16).hex()


def echo_request_id(response):
    """after_request: the id goes back to the caller (and to gunicorn's access line)."""
    request_id = g.get("request_id")
    if request_id:
        response.headers[HEADER] = request_id
    return response


class RequestIdFilter(logging.Filter):
    """Gives every record the id of the request it was written in ("-" outside one)."""

    def filter(self, record):
        record.request_id = g.get("request_id", "-") if has_request_context() else "-"
        return True


def json_line(**fields):
    """One log line as a JSON object, its time in UTC with six fraction digits."""
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return json.dumps({"time": now, **fields}, ensure_ascii=False)


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "request_id", "message"[, "error"]}`` with secrets masked."""

    def format(self, record):
        fields = {"level": record.levelname, "logger": record.name,
                  "request_id": getattr(record, "request_id", "-"), "message": redact(record.getMessage())}
        if record.exc_info:
            fields["error"] = redact(self.formatException(record.exc_info))
        return json_line(**fields)


class RedactingTextFormatter(logging.Formatter):
    def format(self, record):
        return redact(super().format(record))


def configure_logging(level, log_format):
    """Root logging for the application: text (the default) or JSON, request ids, secrets masked."""
    logging.basicConfig(level=level)
    formatter = JsonFormatter() if log_format == "json" else RedactingTextFormatter(TEXT_FORMAT)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(formatter)
        if not any(isinstance(existing, RequestIdFilter) for existing in handler.filters):
            handler.addFilter(RequestIdFilter())
