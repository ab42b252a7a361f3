"""Changing the password on /akun: other sessions end; tokens and trusted devices only when ticked."""
import pytest
from sqlalchemy import select

from guardsvc.accounts import passwords
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.trust.models import TrustedIp
from tests.support.pages_support import csrf_token, post_form, sign_in, text_of

NEW_PASSWORD = "kuda-baterai-staples-benar"
JSON = {"Accept": "application/json"}


def change(browser, **ticks):
    form = {"new_password": NEW_PASSWORD, "confirmation": NEW_PASSWORD, **ticks}
    return post_form(browser, "/akun/kata-sandi", form, page="/akun/kata-sandi")


def prepared_account(app, make_user, make_token):
    """An account signed in here and elsewhere, with a token and a trusted device."""
    user = make_user()
    browser, elsewhere = app.test_client(), app.test_client()
    sign_in(elsewhere, user)
    sign_in(browser, user)
    assert post_form(browser, "/akun/perangkat", {"device_name": "Laptop"}, page="/akun").status_code == 303
    return user, browser, elsewhere, {**JSON, "Authorization": f"Bearer {make_token(user)}"}


def trusted_devices(app, user):
    with app.app_context():
        return db.session.scalars(select(TrustedIp.is_active).where(TrustedIp.user_id == user.id)).all()


def test_a_password_change_ends_other_sessions_but_keeps_tokens_and_devices(app, make_user, make_token):
    user, browser, elsewhere, token_headers = prepared_account(app, make_user, make_token)
    response = change(browser)
    assert response.status_code == 303 and response.headers["Location"].endswith("/akun#keamanan")
    with app.app_context():
        assert passwords.verify_password(db.session.get(User, user.id).password_hash, NEW_PASSWORD)
    assert browser.get("/akun").status_code == 200
    assert elsewhere.get("/akun").status_code == 302
    assert browser.get("/api/auth/tokens", headers=token_headers).status_code == 200
    assert trusted_devices(app, user) == [True]


def test_ticked_boxes_revoke_every_token_and_trusted_device(app, make_user, make_token):
    user, browser, elsewhere, token_headers = prepared_account(app, make_user, make_token)
    assert change(browser, revoke_tokens="1", revoke_devices="1").status_code == 303
    assert browser.get("/akun").status_code == 200
    assert elsewhere.get("/akun").status_code == 302
    assert app.test_client().get("/api/auth/tokens", headers=token_headers).status_code == 401
    assert trusted_devices(app, user) == [False]


@pytest.mark.parametrize("ticks, tokens_work, devices", [
    ({"revoke_tokens": "1"}, False, [True]),
    ({"revoke_devices": "1"}, True, [False]),
])
def test_each_box_revokes_only_its_own(app, make_user, make_token, ticks, tokens_work, devices):
    user, browser, _, token_headers = prepared_account(app, make_user, make_token)
    assert change(browser, **ticks).status_code == 303
    status = app.test_client().get("/api/auth/tokens", headers=token_headers).status_code
    assert (status == 200) is tokens_work
    assert trusted_devices(app, user) == devices


def test_a_bad_new_password_changes_nothing(app, make_user, make_token):
    user, browser, elsewhere, _ = prepared_account(app, make_user, make_token)
    token = csrf_token(browser, "/akun/kata-sandi")
    response = browser.post("/akun/kata-sandi", data={"csrf_token": token, "new_password": "pendek",
                                                      "confirmation": "lain", "revoke_devices": "1"})
    assert response.status_code == 422 and "Kata sandi minimal 10 karakter." in text_of(response)
    assert elsewhere.get("/akun").status_code == 200
    assert trusted_devices(app, user) == [True]
