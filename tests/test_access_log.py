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
