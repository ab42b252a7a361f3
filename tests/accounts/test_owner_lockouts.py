"""A lockout never locks out the owner, and guessing passwords cannot buy the service's CPU.

Strangers' wrong passwords spend the account's allowance for every client but
the browsers the account knows; the owner is told once a window; a completed
reset starts the counts afresh; a spent account is refused before any hash
runs; beyond the per-process hashing slots a request gets 503 at once.
"""
import threading

import pytest
import requests
from sqlalchemy import select

from guardsvc.accounts import passwords
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from tests.support.factories import PASSWORD
from tests.support.pages_support import CSRF_META
from tests.support.signin_support import request_token

WRONG = "bukan-kata-sandinya-1"


def notices(app, user):
    with app.app_context():
        return db.session.scalars(select(OutboxMessage.id).where(
            OutboxMessage.recipient == user.email, OutboxMessage.kind == "notice_account_locked")).all()


def spend_the_allowance(app, client, user):
    for _ in range(app.config["ACCOUNT_PASSWORD_FAILURES"]):
        assert request_token(client, user.email, WRONG, device=None).status_code == 401
    assert request_token(client, user.email, device=None).status_code == 429  # even the right one


def test_the_owners_browser_is_counted_apart_from_strangers(app, client, make_user):
    user = make_user()
    owner = app.test_client()
    owner.set_cookie(app.config["DEVICE_COOKIE_NAME"], "owner-laptop-cookie")
    assert request_token(owner, user.email, device=None).status_code == 201  # a browser it now knows
    spend_the_allowance(app, client, user)
    assert request_token(owner, user.email, device=None).status_code == 201
    # A device id header naming the owner's cookie is no key.
    assert request_token(client, user.email, device="owner-laptop-cookie").status_code == 429
    assert len(notices(app, user)) == 1  # once per window, however many refusals


def test_a_spent_account_is_refused_before_any_hash(app, client, make_user, monkeypatch):
    user = make_user()
    spend_the_allowance(app, client, user)
    calls = []
    real = passwords.verify_password
    monkeypatch.setattr(passwords, "verify_password", lambda *args: calls.append(args) or real(*args))
    assert request_token(client, user.email, device=None).status_code == 429
    assert calls == []


def test_a_completed_reset_clears_the_counts(app, client, make_user):
    from guardsvc.accounts.models import User
    from guardsvc.storage import clock

    user = make_user()
    spend_the_allowance(app, client, user)
    with app.app_context():
        db.session.get(User, user.id).failures_cleared_at = clock.utcnow()  # as complete_reset does
        db.session.commit()
    assert request_token(client, user.email, device=None).status_code == 201


def test_a_reset_link_sets_the_moment_the_counts_start(app, make_user, monkeypatch):
    from guardsvc.accounts import resets
    from guardsvc.accounts.models import User
    from guardsvc.web.identity import Client

    user = make_user()
    monkeypatch.setattr(resets.secrets, "token_urlsafe", lambda _: "tautan-rahasia-untuk-pengujian-0123456789")
    here = Client("192.0.2.5", None, None, "pytest")
    with app.test_request_context():
        resets.request_reset(user.email, here)
        new = "kata-sandi-baru-yang-panjang"
        changed, problem = resets.complete_reset("tautan-rahasia-untuk-pengujian-0123456789", new, new, here)
        db.session.commit()
        assert problem is None and changed.id == user.id
        assert db.session.get(User, user.id).failures_cleared_at is not None


def test_beyond_the_hashing_slots_the_answer_is_503_at_once(app, client, make_user, monkeypatch):
    monkeypatch.setitem(app.config, "HASH_CONCURRENCY", 1)
    user = make_user()
    held, release = threading.Event(), threading.Event()

    def hold_the_slot():
        with app.app_context(), passwords.hashing_slot():
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_slot)
    holder.start()
    try:
        assert held.wait(10)
        busy = request_token(client, user.email, device=None)
        assert busy.status_code == 503 and busy.headers["Retry-After"] == "1"
        assert busy.get_json()["success"] is False
    finally:
        release.set()
        holder.join()
    assert request_token(client, user.email, device=None).status_code == 201


@pytest.mark.live
def test_strangers_cannot_lock_the_owner_out_of_a_real_server(app, live_server, make_user):
    user = make_user()
    owner = requests.Session()
    token = CSRF_META.search(owner.get(live_server.url + "/masuk", timeout=30).text).group(1)
    form = {"csrf_token": token, "email": user.email, "password": PASSWORD}
    assert owner.post(live_server.url + "/masuk", data=form, allow_redirects=False, timeout=30).status_code == 303
    owner.post(live_server.url + "/keluar", allow_redirects=False, timeout=30,
               data={"csrf_token": CSRF_META.search(owner.get(live_server.url + "/akun", timeout=30).text).group(1)})
    tokens = live_server.url + "/api/auth/tokens"
    for _ in range(app.config["ACCOUNT_PASSWORD_FAILURES"] + 2):
        requests.post(tokens, json={"email": user.email, "password": WRONG}, timeout=30)
    assert requests.post(tokens, json={"email": user.email, "password": PASSWORD}, timeout=30).status_code == 429
    token = CSRF_META.search(owner.get(live_server.url + "/masuk", timeout=30).text).group(1)
    form["csrf_token"] = token
    answer = owner.post(live_server.url + "/masuk", data=form, allow_redirects=False, timeout=30)
    assert answer.status_code == 303 and "/masuk" not in answer.headers["Location"]
    assert len(notices(app, user)) == 1
