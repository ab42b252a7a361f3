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


def test_each_atom_is_gunicorns_own():
    """The atoms computed one by one equal gunicorn's whole set, for every atom of gunicorn's."""
    from gunicorn.glogging import Logger

    from guardsvc.web.access_log import _REQUEST_ATOMS

    environ = {"REQUEST_METHOD": "GET", "RAW_URI": "/banding/cek?tiket=TKT-0000000A", "PATH_INFO": "/banding/cek",
               "QUERY_STRING": "tiket=TKT-0000000A", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "203.0.113.7",
               "HTTP_REFERER": "http://x/", "HTTP_USER_AGENT": "curl/8", "HTTP_AUTHORIZATION": "Basic dXNlcjpwdw=="}
    took = timedelta(seconds=2, microseconds=34567)
    for response in (SimpleNamespace(status="201 CREATED", sent=12, headers=[]),
                     SimpleNamespace(status=404, headers=[])):
        expected = Logger(Config()).atoms(response, SimpleNamespace(headers=[]), environ, took)
        bare = {key: value for key, value in expected.items() if not key.startswith("{")}
        assert set(_REQUEST_ATOMS) == set(bare)
        logger = RedactingLogger(Config())
        for name, atom in _REQUEST_ATOMS.items():
            if name != "t":  # the time of day: equal but for the second it is read in
                assert atom(logger, response, environ, took) == bare[name], name


def test_every_atom_of_the_format_and_only_those_are_logged(monkeypatch):
    config = Config()
    config.set("access_log_format", '%(h)s "%(r)s" %(s)s %(D)s %({user-agent}i)s')
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": "/banding/tiket/rahasia123", "PATH_INFO": "/banding/tiket/rahasia123",
               "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "203.0.113.7"}
    response = SimpleNamespace(status="200 OK", sent=5, headers=[])
    request = SimpleNamespace(headers=[("USER-AGENT", "agen gsv_" + "a" * 30)])
    atoms = RedactingLogger(config).atoms(response, request, environ, timedelta(microseconds=7))
    assert atoms == {"h": "203.0.113.7", "r": "GET /banding/tiket/[redacted] HTTP/1.1", "s": "200", "D": 7,
                     "{user-agent}i": "agen [redacted]"}


def test_redaction_skips_nothing_it_would_mask():
    """The shortcuts (short texts, lines without a secret-carrying path) answer as the patterns do."""
    import itertools

    from guardsvc.web.redaction import MASK, SECRET_LIKE, SECRET_PATHS

    pieces = ["", "/banding/tiket/", "/masuk/atur-ulang/", "x", "?a=1", "A" * 23, "B" * 24, "/banding/cek", " ", "=="]
    for parts in itertools.product(pieces, repeat=3):
        text = "".join(parts)
        assert redact(text) == SECRET_LIKE.sub(MASK, SECRET_PATHS.sub(r"\1" + MASK, text)), text
    assert redact(None) is None and redact(7) == 7
