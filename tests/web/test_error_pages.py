"""Indonesian error pages, the block page, and the helpers pages rely on."""
import re
from datetime import datetime
from types import SimpleNamespace

import pytest
from sqlalchemy.exc import OperationalError

from guardsvc.web.errors import Blocked, render_failure
from guardsvc.pages import views as landing_views
from guardsvc.web.humantime import human_time
from guardsvc.pages.navigation import safe_next
from tests.support.pages_support import sign_in_session, text_of


def test_landing_links_to_appeal_status_and_sign_in(client):
    html = text_of(client.get("/"))
    for href in ('href="/banding"', 'href="/banding/cek"', 'href="/masuk"'):
        assert href in html
    assert 'class="skip-link" href="#konten"' in html


def test_pages_carry_security_headers_and_no_inline_script(client):
    response = client.get("/banding")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    html = text_of(response)
    assert "<script>" not in html and "style=" not in html
    assert re.search(r'<script src="/static/js/site\.js\?v=[0-9a-f]{12}" defer></script>', html)


def test_static_assets_are_served(client):
    assert client.get("/static/css/site.css").status_code == 200
    assert client.get("/static/js/site.js").status_code == 200


def test_404_page(client):
    response = client.get("/tidak-ada")
    assert response.status_code == 404
    html = text_of(response)
    assert "<h1 id=\"judul-kesalahan\">Halaman tidak ditemukan</h1>" in html
    assert '<html lang="id">' in html and 'href="/banding/cek"' in html


def test_405_page(client):
    response = client.get("/keluar")
    assert response.status_code == 405
    assert "Metode tidak diizinkan" in text_of(response)
    assert response.headers["Allow"]


def test_400_page_for_missing_csrf(client):
    response = client.post("/keluar")
    assert response.status_code == 400
    assert "Token CSRF tidak ada atau tidak valid." in text_of(response)
    assert "muat ulang halamannya" in text_of(response)


def test_500_page_reveals_nothing(client, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals /etc/passwd")

    monkeypatch.setattr(landing_views, "render_template", broken)
    response = client.get("/")
    html = text_of(response)
    assert response.status_code == 500
    assert "Terjadi kesalahan" in html
    assert "secret internals" not in html and "Traceback" not in html


def test_503_page_when_database_is_unreachable(client, monkeypatch):
    def unreachable(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, Exception("could not connect to server"))

    monkeypatch.setattr(landing_views, "render_template", unreachable)
    response = client.get("/")
    assert response.status_code == 503
    assert "Layanan sedang terganggu" in text_of(response)
    assert "could not connect" not in text_of(response)


def test_403_page_for_a_role_without_web_pages(client, make_user):
    sign_in_session(client, make_user(role="service"))
    response = client.get("/akun")
    assert response.status_code == 403
    assert "Akses ditolak" in text_of(response)


def test_block_page_explains_and_links_to_prefilled_appeal(app):
    block = SimpleNamespace(reference="BLK-00AB12CD", expires_at=None, is_active_at=lambda moment: True)
    with app.test_request_context("/halaman-apa-saja"):
        error = Blocked(block, appeal_url="http://localhost:8000/banding?ref=BLK-00AB12CD")
        response = render_failure(error.status, error.message, extra=error.extra, error=error)
    html = response.get_data(as_text=True)
    assert response.status_code == 403
    assert "Akses Anda diblokir" in html
    assert ">BLK-00AB12CD</output>" in html
    assert 'href="/banding?ref=BLK-00AB12CD"' in html
    assert 'href="/banding/cek"' in html


@pytest.mark.parametrize("target,expected", [
    ("/akun", "/akun"), ("/banding/cek?tiket=TKT-1", "/banding/cek?tiket=TKT-1"), ("/", "/"),
    ("//evil.com", "D"), ("https://evil.com", "D"), ("/\\evil.com", "D"), ("\\\\evil.com", "D"),
    ("/\t/evil.com", "D"), ("/\n/evil.com", "D"), ("javascript:alert(1)", "D"), ("", "D"), (None, "D"),
    ("evil.com/", "D"), ("///evil.com", "D"),
])
def test_safe_next(target, expected):
    assert safe_next(target, default="D") == expected


def test_human_time_is_local_and_names_the_zone(app):
    with app.app_context():
        assert human_time(datetime(2026, 1, 5, 7, 3)) == "5 Januari 2026, 14.03 WIB"
        assert human_time(datetime(2026, 1, 5, 20, 3)) == "6 Januari 2026, 03.03 WIB"
        assert human_time(None) == ""
