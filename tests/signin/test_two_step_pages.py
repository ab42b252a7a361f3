"""Functional tests of the web flow: code step, 2FA set-up on /akun, sign out everywhere, password."""
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent
from tests.support.factories import PASSWORD
from tests.support.pages_support import post_form, sign_in, text_of
from tests.support.signin_support import BROWSER_UA, browser_client, enable_2fa, rate_limits_off, totp_code  # noqa: F401

pytestmark = pytest.mark.usefixtures("rate_limits_off")


@pytest.fixture()
def browser(app):
    return browser_client(app)


def password_step(client, user, password=PASSWORD, next_url=None):
    data = {"email": user.email, "password": password}
    if next_url:
        data["next"] = next_url
    return post_form(client, "/masuk", data, page="/masuk")


def code_step(client, code, trust=False):
    data = {"code": code, **({"trust": "1"} if trust else {})}
    return post_form(client, "/masuk/kode", data, page="/masuk")


def results(app, user):
    with app.app_context():
        return db.session.scalars(select(LoginEvent.result).where(LoginEvent.user_id == user.id)
                                  .order_by(LoginEvent.id)).all()


def signed_in(client):
    return client.get("/akun").status_code == 200


def test_2fa_account_goes_through_the_code_page(app, browser, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    response = password_step(browser, user)
    assert response.status_code == 303 and response.headers["Location"] == "/masuk/kode"
    assert not signed_in(browser)  # half-signed-in is not signed in
    page = text_of(browser.get("/masuk/kode"))
    assert 'autocomplete="one-time-code"' in page and "kode pemulihan" in page
    wrong = code_step(browser, "000000" if totp_code(secret) != "000000" else "111111")
    assert wrong.status_code == 401
    assert "Kode verifikasi salah atau sudah pernah dipakai." in text_of(wrong)
    assert not signed_in(browser)
    done = code_step(browser, totp_code(secret))
    assert done.status_code == 303 and done.headers["Location"] == "/akun"
    assert signed_in(browser)
    assert results(app, user) == ["code_required", "wrong_code", "2fa_passed"]


def test_next_survives_the_code_step(app, browser, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    password_step(browser, user, next_url="/akun/kata-sandi")
    assert code_step(browser, totp_code(secret)).headers["Location"] == "/akun/kata-sandi"


def test_recovery_code_works_on_the_code_page_once(app, browser, make_user):
    user = make_user()
    _, codes = enable_2fa(app, user)
    password_step(browser, user)
    assert code_step(browser, codes[0]).status_code == 303
    post_form(browser, "/keluar", page="/akun")
    password_step(browser, user)
    assert code_step(browser, codes[0]).status_code == 401


def test_trusting_the_device_at_the_code_step_skips_it_next_time(app, browser, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    password_step(browser, user)
    code_step(browser, totp_code(secret), trust=True)
    post_form(browser, "/keluar", page="/akun")
    response = password_step(browser, user)
    assert response.headers["Location"] == "/akun"
    assert results(app, user) == ["code_required", "2fa_passed", "2fa_skipped"]
    # Same account from another network: the code is asked again.
    other = browser.application.test_client()
    other.environ_base.update({"HTTP_USER_AGENT": BROWSER_UA, "REMOTE_ADDR": "198.51.100.99"})
    assert password_step(other, user).headers["Location"] == "/masuk/kode"


def test_code_page_without_password_step_goes_back_to_sign_in(browser):
    response = browser.get("/masuk/kode")
    assert response.status_code == 303 and response.headers["Location"] == "/masuk"
    assert "Waktu untuk memasukkan kode sudah habis" in text_of(browser.get("/masuk"))


def test_half_sign_in_expires(app, browser, make_user, monkeypatch):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    password_step(browser, user)
    later = clock.utcnow() + timedelta(minutes=app.config["SIGNIN_CODE_MINUTES"], seconds=1)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    response = code_step(browser, totp_code(secret))
    assert response.status_code == 303 and response.headers["Location"] == "/masuk"
    assert not signed_in(browser)


def test_service_account_is_refused_and_recorded(app, browser, make_user):
    user = make_user(role="service")
    response = password_step(browser, user)
    assert response.status_code == 403
    assert "Akun layanan tidak dapat masuk" in text_of(response)
    assert results(app, user) == ["not_allowed"]


def test_enrol_confirm_and_see_recovery_codes_once(app, browser, make_user):
    user = make_user()
    sign_in(browser, user)
    assert "Siapkan verifikasi dua langkah" in text_of(browser.get("/akun"))
    started = post_form(browser, "/akun/dua-langkah/mulai", page="/akun")
    assert started.status_code == 303 and started.headers["Location"] == "/akun#dua-langkah"
    page = text_of(browser.get("/akun"))
    assert '<svg width="' in page and "<title>Kode QR verifikasi dua langkah</title>" in page
    # Shown in groups of four (they wrap on a phone), one element each, nothing between them.
    groups = re.search(r'id="kunci-rahasia">((?:<span class="secret-group">[A-Z2-7]{4}</span>){8})</span>', page)
    secret = re.sub(r"<[^>]+>", "", groups.group(1))
    wrong = post_form(browser, "/akun/dua-langkah/aktifkan", {"code": "12345"}, page="/akun")
    assert wrong.status_code == 422
    assert "Kode verifikasi salah" in text_of(wrong)
    confirmed = post_form(browser, "/akun/dua-langkah/aktifkan", {"code": totp_code(secret)}, page="/akun")
    assert confirmed.status_code == 201
    assert confirmed.headers["Cache-Control"] == "no-store"
    codes = re.findall(r"<li>([a-z2-9]{5}-[a-z2-9]{5})</li>", text_of(confirmed))
    assert len(codes) == 10
    account = text_of(browser.get("/akun"))
    assert 'id="sisa-kode-pemulihan">10<' in account
    assert not any(code in account for code in codes)
    assert "kunci-rahasia" not in account


def test_cancel_a_pending_set_up(app, browser, make_user):
    sign_in(browser, make_user())
    post_form(browser, "/akun/dua-langkah/mulai", page="/akun")
    post_form(browser, "/akun/dua-langkah/batal", page="/akun")
    assert "Siapkan verifikasi dua langkah" in text_of(browser.get("/akun"))


def test_disable_and_regenerate_need_the_password(app, browser, make_user):
    user = make_user()
    secret, old_codes = enable_2fa(app, user)
    password_step(browser, user)
    code_step(browser, totp_code(secret))
    refused = post_form(browser, "/akun/dua-langkah/kode-pemulihan", {"password": "salah"}, page="/akun")
    assert refused.status_code == 422 and "Kata sandi salah." in text_of(refused)
    fresh = post_form(browser, "/akun/dua-langkah/kode-pemulihan", {"password": PASSWORD}, page="/akun")
    assert fresh.status_code == 201
    assert not set(old_codes) & set(re.findall(r"<li>([a-z2-9]{5}-[a-z2-9]{5})</li>", text_of(fresh)))
    assert post_form(browser, "/akun/dua-langkah/nonaktifkan", {"password": "salah"}, page="/akun").status_code == 422
    off = post_form(browser, "/akun/dua-langkah/nonaktifkan", {"password": PASSWORD}, page="/akun")
    assert off.status_code == 303
    assert "Verifikasi dua langkah sudah dinonaktifkan." in text_of(browser.get("/akun"))
    with app.app_context():
        assert not db.session.get(User, user.id).has_2fa


def test_sign_out_everywhere_ends_every_session(app, make_user):
    user = make_user()
    phone, laptop = app.test_client(), app.test_client()
    sign_in(phone, user)
    sign_in(laptop, user)
    response = post_form(laptop, "/akun/keluar-semua", page="/akun")
    assert response.status_code == 303 and response.headers["Location"] == "/masuk"
    assert not signed_in(laptop) and not signed_in(phone)
    assert "Anda telah keluar dari semua perangkat." in text_of(laptop.get("/masuk"))
    sign_in(phone, user)  # signing in again works
    assert signed_in(phone)


def test_sign_out_everywhere_needs_csrf(client, make_user):
    sign_in(client, make_user())
    assert client.post("/akun/keluar-semua").status_code == 400
    assert signed_in(client)


def test_change_password_keeps_this_session_and_ends_others(app, make_user):
    user = make_user()
    this, other = app.test_client(), app.test_client()
    sign_in(this, user)
    sign_in(other, user)
    form = text_of(this.get("/akun/kata-sandi"))
    assert 'autocomplete="new-password"' in form
    refused = post_form(this, "/akun/kata-sandi", {"current_password": "salah", "new_password": "pendek",
                                                   "confirmation": "lain"}, page="/akun/kata-sandi")
    assert refused.status_code == 422
    assert "Kata sandi minimal 10 karakter." in text_of(refused)
    new = "kuda-baterai-staples-benar"
    done = post_form(this, "/akun/kata-sandi", {"current_password": PASSWORD, "new_password": new,
                                                "confirmation": new}, page="/akun/kata-sandi")
    assert done.status_code == 303
    assert "Kata sandi berhasil diubah." in text_of(this.get("/akun"))
    assert signed_in(this) and not signed_in(other)
    assert password_step(other, user).status_code == 401
    assert password_step(other, user, new).status_code == 303


def test_account_page_lists_recent_sign_ins(app, browser, make_user):
    user = make_user()
    password_step(browser, user, "salah-sekali")
    sign_in(browser, user)
    page = text_of(browser.get("/akun"))
    history = page[page.index('id="riwayat-masuk"'):]
    assert history.index("Berhasil masuk") < history.index("Kata sandi salah")
    assert "203.0.113.7" in history and "Chrome di Windows" in history
