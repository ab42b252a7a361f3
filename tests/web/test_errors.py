"""The error contract: every /api/ failure is JSON of one shape, never HTML, never internals."""
import pytest
from sqlalchemy.exc import OperationalError

SUBMIT = "/api/guard/unblock-tickets/submit"


def assert_json_failure(response, status):
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["success"] is False
    assert isinstance(body["message"], str) and body["message"]
    return body


def test_unknown_api_route_is_json_404(client):
    assert_json_failure(client.get("/api/tidak-ada"), 404)
    assert_json_failure(client.get("/api"), 404)


def test_wrong_method_is_405_with_allow(client):
    response = client.get(SUBMIT)
    assert_json_failure(response, 405)
    assert "POST" in response.headers["Allow"]


@pytest.mark.parametrize("payload", [b"{bad json", b"[1, 2]", b'"text"', b"\xff\xfe", b"null"])
def test_malformed_or_non_object_json_is_400(client, payload):
    assert_json_failure(client.post(SUBMIT, data=payload, content_type="application/json"), 400)


def test_non_json_content_type_is_415(client):
    assert_json_failure(client.post(SUBMIT, data="name=Budi", content_type="application/x-www-form-urlencoded"), 415)


def test_body_over_64_kib_is_413(client):
    body = b'{"reason": "' + b"x" * (64 * 1024) + b'"}'
    assert_json_failure(client.post(SUBMIT, data=body, content_type="application/json"), 413)


def test_unexpected_error_is_500_without_internals(client, monkeypatch):
    from guardsvc.appeals import service

    def explode(*args, **kwargs):
        raise RuntimeError("secret internal detail SELECT * FROM users")

    monkeypatch.setattr(service, "ticket_status", explode)
    response = client.get("/api/guard/unblock-tickets/check/TKT-00000000")
    body = assert_json_failure(response, 500)
    text = response.get_data(as_text=True)
    assert "secret" not in text and "SELECT" not in text and "Traceback" not in text
    assert body["message"] == "Terjadi kesalahan pada server. Silakan coba lagi nanti."


def test_database_unreachable_is_503(client, monkeypatch):
    from guardsvc.appeals import service

    def unreachable(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, Exception("connection refused to db.internal:5432"))

    monkeypatch.setattr(service, "ticket_status", unreachable)
    response = client.get("/api/guard/unblock-tickets/check/TKT-00000000")
    assert_json_failure(response, 503)
    assert "db.internal" not in response.get_data(as_text=True)


def test_real_unreachable_database_is_503(bearer):
    from guardsvc import create_app

    broken = create_app({"TESTING": True,
                         "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://nobody@127.0.0.1:1/none"})
    client = broken.test_client()
    assert_json_failure(client.get("/api/guard/unblock-tickets/check/TKT-00000000"), 503)
    assert_json_failure(client.get("/readyz"), 503)
    assert client.get("/healthz").status_code == 200


def test_html_errors_are_indonesian_pages(client):
    response = client.get("/tidak-ada")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert '<html lang="id">' in html and "tidak ditemukan" in html.lower()


def test_security_headers_on_every_answer(client):
    response = client.get("/api/guard/unblock-tickets/check/TKT-00000000")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["Cache-Control"] == "no-store"


def test_rate_limit_is_429_with_retry_after_and_no_ticket_number(make_user):
    from guardsvc import create_app

    limited = create_app({"TESTING": True, "RATELIMIT_ENABLED": True, "RATELIMIT_CHECK": "2 per minute"})
    client = limited.test_client()
    url = "/api/guard/unblock-tickets/check/TKT-00000000"
    assert client.get(url).status_code == 404
    assert client.get(url).status_code == 404
    response = client.get(url)
    body = assert_json_failure(response, 429)
    assert int(response.headers["Retry-After"]) > 0
    assert "ticket_number" not in body


def test_private_pages_are_never_stored_and_secure_cookies_bring_hsts(app, client, make_user, monkeypatch):
    from tests.support.pages_support import sign_in_session

    sign_in_session(client, make_user(role="admin"))
    for path in ("/admin", "/akun"):
        assert client.get(path).headers["Cache-Control"] == "no-store", path
    assert "no-store" not in client.get("/banding").headers.get("Cache-Control", "")
    assert "Strict-Transport-Security" not in client.get("/banding").headers
    monkeypatch.setitem(app.config, "SESSION_COOKIE_SECURE", True)
    assert client.get("/banding").headers["Strict-Transport-Security"].startswith("max-age=")
