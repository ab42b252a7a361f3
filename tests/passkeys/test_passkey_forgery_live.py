"""Replayed against a real gunicorn: "Masuk dengan passkey" answers that anyone can make.

A credential id is no secret (an authenticator shows it to every site that asks, and
it travels in every answer). An attacker who learnt one makes answers naming it,
signed by a key of their own or without the ``userHandle`` that names the account.
Each must be refused without spending the owner's allowance of wrong codes: before,
five of them locked the owner out of their own code step.
"""
import json
import os

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent
from tests.support.factories import PASSWORD
from tests.support.pages_support import CSRF_META, sign_in_session
from tests.support.passkey_support import add_passkey
from tests.support.signin_support import browser_client, enable_2fa, totp_code
from tests.support.soft_authenticator import SoftAuthenticator, SoftCredential, b64url

pytestmark = pytest.mark.live


def token_of(browser, server, path):
    return CSRF_META.search(browser.get(server.url + path, timeout=30).text).group(1)


def passwordless_options(browser, server):
    """What static/js/passkeys.js asks of the live server for "Masuk dengan passkey"."""
    reply = browser.post(server.url + "/masuk/passkey/opsi", timeout=30,
                         headers={"X-CSRFToken": token_of(browser, server, "/masuk"), "Accept": "application/json"})
    assert reply.status_code == 200, reply.text[:300]
    return reply.json()


def send_answer(browser, server, answer):
    form = {"csrf_token": token_of(browser, server, "/masuk"), "credential": json.dumps(answer)}
    return browser.post(server.url + "/masuk/passkey", data=form, allow_redirects=False, timeout=30)


def signed_in(browser, server):
    return browser.get(server.url + "/akun", allow_redirects=False, timeout=30).status_code == 200


@pytest.fixture()
def victim(app, make_user):
    """A 2FA account with a passkey: (user, its TOTP secret, its authenticator answering at the live origin)."""
    user = make_user()
    browser = browser_client(app)
    sign_in_session(browser, user)
    authenticator = add_passkey(browser)
    secret, _ = enable_2fa(app, user)
    return user, secret, authenticator


def counted_against(app, user):
    with app.app_context():
        return db.session.scalars(select(LoginEvent.result).where(LoginEvent.user_id == user.id,
                                                                  LoginEvent.result == "wrong_code")).all()


def test_forged_answers_naming_a_victims_credential_do_not_lock_the_victim_out(app, live_server, victim):
    user, secret, authenticator = victim
    authenticator.origin = live_server.browser_url
    real = authenticator.credentials[-1]
    # The attacker's own key under the victim's credential id (and the victim's user handle, also no secret).
    forged = SoftAuthenticator(live_server.browser_url, credentials=[SoftCredential(
        real.credential_id, ec.generate_private_key(ec.SECP256R1()), real.rp_id, real.user_handle)])
    attacker = requests.Session()
    for attempt in range(app.config["ACCOUNT_CODE_FAILURES"] + 2):
        answer = forged.get(passwordless_options(attacker, live_server))
        if attempt % 2:
            answer["response"]["signature"] = b64url(os.urandom(70))  # not even a signature
        refused = send_answer(attacker, live_server, answer)
        assert refused.status_code == 401 and "tidak dapat diverifikasi" in refused.text, refused.text[:300]
        assert not signed_in(attacker, live_server)
    assert counted_against(app, user) == []
    with app.app_context():  # still on record, as attempts of no account
        assert db.session.scalar(select(LoginEvent.id).where(LoginEvent.user_id.is_(None),
                                                             LoginEvent.result == "wrong_code")) is not None

    # The owner signs in with password and code as ever: not locked (429), not slowed.
    owner = requests.Session()
    login = {"csrf_token": token_of(owner, live_server, "/masuk"), "email": user.email, "password": PASSWORD}
    step = owner.post(live_server.url + "/masuk", data=login, allow_redirects=False, timeout=30)
    assert step.status_code == 303 and "/masuk/kode" in step.headers["Location"], step.text[:300]
    code = {"csrf_token": token_of(owner, live_server, "/masuk/kode"), "code": totp_code(secret)}
    done = owner.post(live_server.url + "/masuk/kode", data=code, allow_redirects=False, timeout=30)
    assert done.status_code == 303 and "/masuk" not in done.headers["Location"], done.text[:300]
    assert signed_in(owner, live_server)
    # And the owner's own passkey still signs in.
    browser = requests.Session()
    assert send_answer(browser, live_server, authenticator.get(passwordless_options(browser, live_server))
                       ).status_code == 303 and signed_in(browser, live_server)


def test_passwordless_sign_in_requires_the_user_handle_of_the_credentials_account(app, live_server, victim):
    user, _, authenticator = victim
    authenticator.origin = live_server.browser_url
    for handle in (None, "absent", b64url(os.urandom(32))):
        browser = requests.Session()
        answer = authenticator.get(passwordless_options(browser, live_server))
        if handle == "absent":
            del answer["response"]["userHandle"]
        else:
            answer["response"]["userHandle"] = handle
        refused = send_answer(browser, live_server, answer)
        assert refused.status_code == 401 and "tidak dapat diverifikasi" in refused.text, (handle, refused.text[:300])
        assert not signed_in(browser, live_server)
    assert counted_against(app, user) == []
    # The same authenticator, its answer whole (the handle the account's passkeys carry): signed in.
    browser = requests.Session()
    reply = send_answer(browser, live_server, authenticator.get(passwordless_options(browser, live_server)))
    assert reply.status_code == 303 and signed_in(browser, live_server)
