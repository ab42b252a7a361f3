"""Secrets never reach the logs: application and gunicorn's access lines are masked (mail never goes there)."""
import secrets
from datetime import timedelta
from types import SimpleNamespace

import pytest
from gunicorn.config import Config

from guardsvc.web.access_log import RedactingLogger
from guardsvc.web.redaction import redact
from guardsvc.storage.sealing import seal

LINK_SECRET = secrets.token_urlsafe(32)
TOKEN = "gsv_" + secrets.token_urlsafe(32)


@pytest.mark.parametrize("secret", [LINK_SECRET, TOKEN, secrets.token_hex(32)], ids=["link", "token", "hex"])
def test_secret_like_runs_are_masked(secret):
    line = f"buka https://contoh.id/masuk/atur-ulang/{secret}?x=1 sekarang"
    assert redact(line) == "buka https://contoh.id/masuk/atur-ulang/[redacted]?x=1 sekarang"


def test_sealed_secrets_are_masked(app):
    with app.app_context():
        sealed = seal("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")
    assert redact(f"value {sealed}") == "value [redacted]"


@pytest.mark.parametrize("text", [
    "Permohonan UNB-2026-000123 dari 2001:db8::1 dan 203.0.113.7 untuk budi.santoso@example.com",
    "GET /api/security/trusted-ips/check?user_id=3&ip=203.0.113.7&device_id=laptop-1 HTTP/1.1",
    "/akun/dua-langkah/kode-pemulihan", "Referensi BLK-0000ABCD, kode abcde-23456",
])
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def test_access_log_hides_secrets_in_paths_and_referers():
    path = f"/masuk/atur-ulang/{LINK_SECRET}"
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": f"{path}?t={TOKEN}", "PATH_INFO": path, "QUERY_STRING": f"t={TOKEN}",
               "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "203.0.113.7", "HTTP_REFERER": f"https://contoh.id{path}"}
    request = SimpleNamespace(method="GET", path=path, query=f"t={TOKEN}", uri=f"{path}?t={TOKEN}", version=(1, 1),
                              headers=[("REFERER", f"https://contoh.id{path}")])
    response = SimpleNamespace(status="200 OK", response_length=10, sent=10, headers=[])
    atoms = RedactingLogger(Config()).atoms(response, request, environ, timedelta(milliseconds=5))
    line = " ".join(str(value) for value in atoms.values())
    assert LINK_SECRET not in line and TOKEN not in line
    assert atoms["r"] == "GET /masuk/atur-ulang/[redacted]?t=[redacted] HTTP/1.1"
