"""The access log names secret-carrying pages, never their secrets."""
from datetime import timedelta
from types import SimpleNamespace

from gunicorn.config import Config

from guardsvc.web.access_log import RedactingLogger, redact


def test_secret_paths_are_redacted_and_others_kept():
    assert redact("GET /banding/tiket/AbC-d_9xyz HTTP/1.1") == "GET /banding/tiket/[redacted] HTTP/1.1"
    assert redact("/masuk/atur-ulang/s3cr3t?x=1") == "/masuk/atur-ulang/[redacted]?x=1"
    assert redact("GET /banding/cek?tiket=TKT-0000000A HTTP/1.1") == "GET /banding/cek?tiket=TKT-0000000A HTTP/1.1"


def test_the_gunicorn_logger_redacts_every_atom():
    environ = {"REQUEST_METHOD": "POST", "RAW_URI": "/banding/tiket/rahasia123", "PATH_INFO": "/banding/tiket/rahasia123",
               "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "203.0.113.7",
               "HTTP_REFERER": "http://127.0.0.1:8000/banding/tiket/rahasia123"}
    response = SimpleNamespace(status="303 SEE OTHER", sent=0, headers=[])
    atoms = RedactingLogger(Config()).atoms(response, SimpleNamespace(headers=[]), environ, timedelta(0))
    assert atoms["r"] == "POST /banding/tiket/[redacted] HTTP/1.1"
    assert "rahasia123" not in repr(atoms)


def test_json_access_lines_carry_the_request_id_and_mask_secrets(monkeypatch):
    import json
    import logging

    monkeypatch.setenv("GUARDSVC_LOG_FORMAT", "json")
    config = Config()
    config.set("accesslog", "-")
    logger = RedactingLogger(config)
    lines = []
    monkeypatch.setattr(logger.access_log, "info", lambda message, *args: lines.append(message))
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": "/masuk/atur-ulang/rahasia-panjang-sekali-1234567890",
               "PATH_INFO": "/masuk/atur-ulang/rahasia-panjang-sekali-1234567890", "QUERY_STRING": "",
               "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "203.0.113.7"}
    response = SimpleNamespace(status="200 OK", status_code=200, sent=10, headers=[("X-Request-Id", "abc-123")])
    logger.access(response, SimpleNamespace(headers=[]), environ, timedelta(milliseconds=12))
    [line] = lines
    entry = json.loads(line)
    assert entry["request_id"] == "abc-123" and entry["status"] == 200 and entry["method"] == "GET"
    assert "rahasia" not in line and entry["path"] == "/masuk/atur-ulang/[redacted]"
    assert logging.getLevelName(entry["level"]) == logging.INFO


def test_every_answer_carries_a_request_id_and_application_lines_are_json(app, client):
    import json

    from guardsvc.web.request_logs import JsonFormatter, RequestIdFilter

    sent = client.get("/healthz", headers={"X-Request-Id": "dari-proxy.7"})
    assert sent.headers["X-Request-Id"] == "dari-proxy.7"
    made = client.get("/healthz", headers={"X-Request-Id": "bukan id yang <baik>"})
    assert made.headers["X-Request-Id"] not in ("", "bukan id yang <baik>") and len(made.headers["X-Request-Id"]) == 32
    with app.test_request_context("/", headers={"X-Request-Id": "rid-1"}):
        from guardsvc.web.request_logs import assign_request_id

        assign_request_id()
        record = logging_record("link /banding/tiket/rahasia-yang-panjang-sekali-0123456789 dibuka")
        RequestIdFilter().filter(record)
        entry = json.loads(JsonFormatter().format(record))
    assert entry["request_id"] == "rid-1" and "rahasia" not in entry["message"]


def logging_record(message):
    import logging

    return logging.LogRecord("guardsvc.test", logging.WARNING, __file__, 1, message, None, None)
