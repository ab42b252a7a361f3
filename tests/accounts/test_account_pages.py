"""Functional tests of /akun: trusted devices and personal access tokens."""
import re

import pytest
from sqlalchemy import select

from guardsvc.accounts.models import ApiToken
from guardsvc.extensions import db
from guardsvc.trust.models import TrustedIp
from tests.support.pages_support import post_form, sign_in, text_of

CHROME_WINDOWS = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/120.0 Safari/537.36")


@pytest.fixture()
def browser(app, make_user):
    """A signed-in test client that sends a browser User-Agent; yields (client, user)."""
    client = app.test_client()
    client.environ_base.update({"HTTP_USER_AGENT": CHROME_WINDOWS, "REMOTE_ADDR": "203.0.113.7"})
    user = make_user(name="Sari Dewi")
    sign_in(client, user)
    return client, user


def records(app):
    with app.app_context():
        return db.session.scalars(select(TrustedIp).order_by(TrustedIp.id)).all()


def trust(client, name=""):
    return post_form(client, "/akun/perangkat", {"device_name": name}, page="/akun")


def test_trust_this_device_registers_ip_and_cookie_device(browser, app):
    client, user = browser
    response = trust(client, "Laptop kantor")
    assert response.status_code == 303
    assert response.headers["Location"] == "/akun#perangkat"
    [record] = records(app)
    assert record.user_id == user.id
    assert record.ip_address == "203.0.113.7"
    assert record.device_id == client.get_cookie("guardsvc_device").value
    assert record.operating_system == CHROME_WINDOWS
    html = text_of(client.get("/akun"))
    assert "IP 203.0.113.7 di perangkat ini kini tepercaya." in html
    card = re.search(rf'<li class="card record" id="perangkat-{record.id}">.*?</li>', html, re.S).group(0)
    assert "Laptop kantor" in card and "Perangkat ini" in card and "Chrome di Windows" in card
    assert "203.0.113.7" in card


def test_blank_name_on_first_trust_uses_browser(browser, app):
    client, _ = browser
    trust(client, "")
    [record] = records(app)
    assert record.device_name == "Chrome di Windows"


def test_trusting_again_without_a_name_keeps_the_chosen_one(browser, app):
    client, _ = browser
    trust(client, "Laptop kantor")
    trust(client, "")
    [record] = records(app)
    assert record.device_name == "Laptop kantor"
    assert "data perangkat diperbarui" in text_of(client.get("/akun"))


def test_trusted_device_is_not_offered_trust_again(browser, app):
    client, _ = browser
    assert 'id="percayai"' in text_of(client.get("/akun"))
    trust(client, "Laptop kantor")
    html = text_of(client.get("/akun"))
    assert 'id="percayai"' not in html and "Perangkat ini sudah tepercaya" in html
    [record] = records(app)
    post_form(client, f"/akun/perangkat/{record.id}/cabut", page="/akun")
    assert 'id="percayai"' in text_of(client.get("/akun"))


def test_other_device_is_not_marked_as_this_one(browser, app):
    client, _ = browser
    trust(client, "Ponsel")
    client.environ_base["REMOTE_ADDR"] = "198.51.100.1"
    html = text_of(client.get("/akun"))
    assert "Ponsel" in html and "Perangkat ini" not in html


def test_too_long_device_name_keeps_text_and_shows_error(browser, app):
    client, _ = browser
    response = trust(client, "X" * 101)
    assert response.status_code == 422
    html = text_of(response)
    assert 'value="' + "X" * 101 + '"' in html
    assert re.search(r'<input id="nama-perangkat-baru"[^>]*aria-invalid="true"', html)
    assert 'href="#nama-perangkat-baru"' in html
    assert records(app) == []


def test_rename_device(browser, app):
    client, _ = browser
    trust(client, "Lama")
    [record] = records(app)
    response = post_form(client, f"/akun/perangkat/{record.id}/nama", {"device_name": "  Baru  "}, page="/akun")
    assert response.status_code == 303
    assert records(app)[0].device_name == "Baru"
    assert "Nama perangkat berhasil diubah." in text_of(client.get("/akun"))


def test_rename_with_invalid_name_reopens_that_form(browser, app):
    client, _ = browser
    trust(client, "Lama")
    [record] = records(app)
    response = post_form(client, f"/akun/perangkat/{record.id}/nama", {"device_name": ""}, page="/akun")
    assert response.status_code == 422
    html = text_of(response)
    assert '<details class="rename" open>' in html
    assert re.search(rf'<input id="nama-rename-{record.id}"[^>]*aria-invalid="true"', html)
    assert records(app)[0].device_name == "Lama"


def test_revoke_device_keeps_record_marked(browser, app):
    client, _ = browser
    trust(client, "Laptop")
    [record] = records(app)
    response = post_form(client, f"/akun/perangkat/{record.id}/cabut", page="/akun")
    assert response.status_code == 303
    [record] = records(app)
    assert record.is_active is False
    html = text_of(client.get("/akun"))
    assert "Perangkat itu tidak lagi tepercaya." in html
    assert re.search(rf'id="perangkat-{record.id}">.*?Dicabut', html, re.S)
    assert f"/akun/perangkat/{record.id}/cabut" not in html


def test_other_users_devices_are_not_found(browser, app, make_user):
    client, _ = browser
    other = app.test_client()
    sign_in(other, make_user())
    trust(other, "Milik orang lain")
    [record] = records(app)
    for action, data in (("cabut", {}), ("nama", {"device_name": "Diambil"})):
        response = post_form(client, f"/akun/perangkat/{record.id}/{action}", data, page="/akun")
        assert response.status_code == 404
    [record] = records(app)
    assert record.is_active and record.device_name == "Milik orang lain"
    assert "Milik orang lain" not in text_of(client.get("/akun"))


@pytest.mark.parametrize("path", ["/akun/perangkat", "/akun/perangkat/1/nama", "/akun/perangkat/1/cabut",
                                  "/akun/token", "/akun/token/1/cabut"])
def test_account_posts_need_csrf(browser, app, path):
    client, _ = browser
    assert client.post(path, data={"device_name": "x", "name": "x"}).status_code == 400
    assert records(app) == []


def test_account_actions_need_sign_in(client):
    response = post_form(client, "/akun/perangkat", {"device_name": "x"})
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/masuk?next=")


def test_token_is_shown_once_and_works(browser, app):
    client, _ = browser
    response = post_form(client, "/akun/token", {"name": "Skrip laporan"}, page="/akun")
    assert response.status_code == 303
    assert response.headers["Location"] == "/akun#token"
    shown = client.get("/akun")
    assert shown.headers["Cache-Control"] == "no-store"
    html = text_of(shown)
    plain = re.search(r'<output id="token-baru" class="copy-value">(gsv_[^<]+)</output>', html).group(1)
    assert "tidak akan ditampilkan lagi" in html
    api = app.test_client().get("/api/auth/tokens", headers={"Authorization": f"Bearer {plain}"})
    assert api.status_code == 200
    assert api.get_json()["data"][0]["name"] == "Skrip laporan"
    later = text_of(client.get("/akun"))
    assert plain not in later
    assert "Skrip laporan" in later and plain[:10] in later
    with app.app_context():
        [record] = db.session.scalars(select(ApiToken)).all()
        assert plain not in (record.token_hash, record.prefix)


def test_revoke_token(browser, app):
    client, _ = browser
    post_form(client, "/akun/token", {"name": ""}, page="/akun")
    html = text_of(client.get("/akun"))
    plain = re.search(r'class="copy-value">(gsv_[^<]+)</output>', html).group(1)
    with app.app_context():
        token_id = db.session.scalar(select(ApiToken.id))
    response = post_form(client, f"/akun/token/{token_id}/cabut", page="/akun")
    assert response.status_code == 303
    assert response.headers["Location"] == "/akun#token"
    assert "Token akses berhasil dicabut." in text_of(client.get("/akun"))
    api = app.test_client().get("/api/auth/tokens", headers={"Authorization": f"Bearer {plain}"})
    assert api.status_code == 401


def test_too_long_token_name_is_a_field_error(browser):
    client, _ = browser
    response = post_form(client, "/akun/token", {"name": "T" * 101}, page="/akun")
    assert response.status_code == 422
    assert re.search(r'<input id="nama-token"[^>]*aria-invalid="true"', text_of(response))
