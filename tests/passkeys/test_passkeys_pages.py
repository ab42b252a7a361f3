"""Passkeys through the pages: /akun, "Masuk dengan passkey", the code step, re-authentication, the CLI, /admin."""
import json

import pytest
from sqlalchemy import select

from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.passkeys.models import Passkey, PasskeyChallenge
from guardsvc.sessions.models import UserSession
from guardsvc.signin.models import LoginEvent
from tests.support.factories import PASSWORD
from tests.support.pages_support import csrf_token, post_form, sign_in_session, text_of
from tests.support.passkey_support import ORIGIN, add_passkey, options, passwordless, send
from tests.support.signin_support import browser_client, enable_2fa, rate_limits_off  # noqa: F401
from tests.support.soft_authenticator import SoftAuthenticator

pytestmark = pytest.mark.usefixtures("rate_limits_off")


@pytest.fixture()
def browser(app):
    return browser_client(app)


def rows(app, column, *where):
    with app.app_context():
        return db.session.scalars(select(column).where(*where).order_by(column.class_.id)).all()


def fresh_browser(app):
    """Another browser, on the same network: no cookies of the others."""
    return browser_client(app)


def test_add_on_the_account_page_then_sign_in_with_the_passkey_alone(app, browser, make_user):
    user = make_user()
    sign_in_session(browser, user)
    page = text_of(browser.get("/akun"))
    assert "Tambah passkey" in page and "Belum ada passkey" in page
    authenticator = add_passkey(browser, name="Laptop kantor")
    page = text_of(browser.get("/akun"))
    assert "Laptop kantor" in page and "berhasil ditambahkan" in page
    assert "Hapus passkey" in page and "Dicadangkan" in page and "Belum pernah" in page
    assert rows(app, OutboxMessage.kind, OutboxMessage.recipient == user.email) == ["notice_passkey_added"]

    visitor = fresh_browser(app)
    reply = passwordless(visitor, authenticator)
    assert reply.status_code == 303 and reply.headers["Location"] == "/akun"
    assert "Masuk sebagai" in text_of(visitor.get("/akun"))
    with app.app_context():
        record = db.session.scalars(select(UserSession).order_by(UserSession.id.desc())).first()
        # Both factors at once: the session starts re-authenticated, second factor included.
        assert record.second_factor_at is not None and record.reauthenticated_at is not None
    assert rows(app, LoginEvent.result, LoginEvent.user_id == user.id) == ["2fa_passed"]
    assert "passkey.used" in rows(app, AuditEvent.action)
    # A sensitive change goes through at once (no confirmation page in between).
    assert options(visitor, "/akun/passkey/opsi", "/akun")["user"]["name"] == user.email


def test_an_unknown_passkey_and_one_without_user_verification_are_refused(app, browser, make_user):
    user = make_user()
    sign_in_session(browser, user)
    authenticator = add_passkey(browser)
    stranger = SoftAuthenticator(ORIGIN)
    stranger.create({"rp": {"id": "127.0.0.1"}, "user": {"id": "AAAA"}, "challenge": "AAAA"})
    reply = passwordless(fresh_browser(app), stranger)
    assert reply.status_code == 401 and "Passkey ini tidak dikenal" in text_of(reply)
    authenticator.user_verified = False
    reply = passwordless(fresh_browser(app), authenticator)
    assert reply.status_code == 401 and "tidak dapat diverifikasi" in text_of(reply)
    # Failed attempts of no account: only a verified signature makes a refusal the account's wrong code.
    assert rows(app, LoginEvent.result, LoginEvent.user_id == user.id) == []
    assert rows(app, LoginEvent.result, LoginEvent.user_id.is_(None)) == ["wrong_code", "wrong_code"]


def test_a_sign_count_going_backwards_is_refused_and_the_owner_told(app, browser, make_user):
    user = make_user()
    sign_in_session(browser, user)
    authenticator = add_passkey(browser)
    assert passwordless(fresh_browser(app), authenticator, sign_count=5).status_code == 303
    reply = passwordless(fresh_browser(app), authenticator, sign_count=3)
    assert reply.status_code == 401 and "penghitung penggunaannya mundur" in text_of(reply)
    # The refusal keeps what it wrote: the notice to the owner and the history row.
    assert "notice_passkey_count" in rows(app, OutboxMessage.kind, OutboxMessage.recipient == user.email)
    assert rows(app, LoginEvent.result, LoginEvent.user_id == user.id) == ["2fa_passed", "wrong_code"]


def test_a_refused_registration_spends_its_challenge(app, browser, make_user):
    user = make_user()
    sign_in_session(browser, user)
    offered = options(browser, "/akun/passkey/opsi", "/akun")
    elsewhere = SoftAuthenticator("https://evil.example").create(offered)
    reply = send(browser, "/akun/passkey", "/akun", elsewhere, name="Palsu")
    assert reply.status_code == 422 and "Passkey tidak dapat diverifikasi" in text_of(reply)
    assert rows(app, PasskeyChallenge.id) == [] and rows(app, Passkey.id) == []
    # The same challenge answered properly now finds nothing to match.
    reply = send(browser, "/akun/passkey", "/akun", SoftAuthenticator(ORIGIN).create(offered))
    assert reply.status_code == 422 and "sudah kedaluwarsa atau sudah dipakai" in text_of(reply)


def test_a_replayed_answer_is_refused(app, browser, make_user):
    user = make_user()
    sign_in_session(browser, user)
    authenticator = add_passkey(browser)
    visitor = fresh_browser(app)
    answer = authenticator.get(options(visitor, "/masuk/passkey/opsi", "/masuk"))
    assert send(visitor, "/masuk/passkey", "/masuk", answer).status_code == 303
    replay = send(fresh_browser(app), "/masuk/passkey", "/masuk", answer)
    assert replay.status_code == 401 and "sudah kedaluwarsa atau sudah dipakai" in text_of(replay)


def test_a_passkey_is_the_second_factor_after_the_password_and_earns_trust(app, browser, make_user):
    user = make_user()
    enable_2fa(app, user)
    sign_in_session(browser, user)
    authenticator = add_passkey(browser)
    visitor = fresh_browser(app)
    reply = post_form(visitor, "/masuk", {"email": user.email, "password": PASSWORD}, page="/masuk")
    assert reply.headers["Location"] == "/masuk/kode"
    assert "Gunakan passkey" in text_of(visitor.get("/masuk/kode"))
    offered = options(visitor, "/masuk/kode/passkey/opsi", "/masuk/kode")
    assert [item["id"] for item in offered["allowCredentials"]] == [authenticator.credentials[0].id]
    reply = send(visitor, "/masuk/kode", "/masuk/kode", authenticator.get(offered), trust="1")
    assert reply.status_code == 303 and reply.headers["Location"] == "/akun"
    assert visitor.get_cookie("guardsvc_trust") is not None  # the trust secret, earned with the passkey
    assert rows(app, LoginEvent.result, LoginEvent.user_id == user.id) == ["code_required", "2fa_passed"]


def test_a_passkey_of_another_account_is_not_a_second_factor(app, browser, make_user):
    owner, other = make_user(), make_user()
    enable_2fa(app, other)
    sign_in_session(browser, owner)
    authenticator = add_passkey(browser)
    other_browser = fresh_browser(app)
    sign_in_session(other_browser, other)
    add_passkey(other_browser)
    visitor = fresh_browser(app)
    post_form(visitor, "/masuk", {"email": other.email, "password": PASSWORD}, page="/masuk")
    offered = options(visitor, "/masuk/kode/passkey/opsi", "/masuk/kode")
    reply = send(visitor, "/masuk/kode", "/masuk/kode", authenticator.get(offered))
    assert reply.status_code == 401 and "Passkey ini tidak dikenal" in text_of(reply)


def test_re_authentication_with_a_passkey_then_trust_this_device(app, make_user):
    user = make_user()
    enable_2fa(app, user)
    setup = fresh_browser(app)
    sign_in_session(setup, user)
    authenticator = add_passkey(setup)
    stale = fresh_browser(app)
    sign_in_session(stale, user, reauthenticated=False)
    reply = post_form(stale, "/akun/perangkat", {"device_name": "Laptop"}, page="/akun")
    assert reply.headers["Location"].startswith("/akun/konfirmasi")
    confirm_page = "/akun/konfirmasi?next=/akun%23perangkat"
    assert "Gunakan passkey" in text_of(stale.get(confirm_page))
    offered = options(stale, "/akun/konfirmasi/passkey/opsi", confirm_page)
    answer = authenticator.get(offered)
    wrong = send(stale, "/akun/konfirmasi", confirm_page, answer, password="salah sekali", next="/akun#perangkat")
    assert wrong.status_code == 401
    offered = options(stale, "/akun/konfirmasi/passkey/opsi", confirm_page)
    reply = send(stale, "/akun/konfirmasi", confirm_page, authenticator.get(offered), password=PASSWORD,
                 next="/akun#perangkat")
    assert reply.status_code == 303 and reply.headers["Location"] == "/akun#perangkat"
    reply = post_form(stale, "/akun/perangkat", {"device_name": "Laptop"}, page="/akun")
    assert reply.headers["Location"] == "/akun#perangkat"
    assert stale.get_cookie("guardsvc_trust") is not None


def test_adding_and_removing_wait_for_re_authentication_and_need_the_csrf_token(app, make_user):
    user = make_user()
    fresh = fresh_browser(app)
    sign_in_session(fresh, user)
    add_passkey(fresh)
    passkey_id = rows(app, Passkey.id)[0]
    stale = fresh_browser(app)
    sign_in_session(stale, user, reauthenticated=False)
    assert "Demi keamanan" in text_of(stale.get("/akun"))
    reply = stale.post("/akun/passkey/opsi", headers={"X-CSRFToken": csrf_token(stale, "/akun")})
    assert reply.status_code == 303 and reply.headers["Location"].startswith("/akun/konfirmasi")
    assert post_form(stale, f"/akun/passkey/{passkey_id}/hapus", page="/akun").status_code == 303
    assert rows(app, Passkey.id) == [passkey_id]
    # Without the CSRF token nothing happens, with a signed-in cookie or without one.
    assert fresh.post("/akun/passkey/opsi").status_code == 400
    assert fresh.post(f"/akun/passkey/{passkey_id}/hapus").status_code == 400
    assert fresh_browser(app).post("/masuk/passkey/opsi").status_code == 400
    assert fresh_browser(app).post("/masuk/passkey", data={"credential": "{}"}).status_code == 400
    assert rows(app, Passkey.id) == [passkey_id]
    reply = post_form(fresh, f"/akun/passkey/{passkey_id}/hapus", page="/akun")
    assert reply.status_code == 303 and rows(app, Passkey.id) == []
    assert "notice_passkey_removed" in rows(app, OutboxMessage.kind, OutboxMessage.recipient == user.email)


def test_the_command_line_lists_and_removes_audited(app, runner, make_user):
    user = make_user()
    browser = fresh_browser(app)
    sign_in_session(browser, user)
    add_passkey(browser, name="Kunci USB")
    listed = runner.invoke(args=["users", "passkeys", user.email, "--json"])
    assert listed.exit_code == 0, listed.output
    [row] = json.loads(listed.output)
    assert row["name"] == "Kunci USB" and row["last_used_at"] is None
    removed = runner.invoke(args=["users", "passkeys", user.email, "--remove", str(row["id"])])
    assert removed.exit_code == 0 and f"removed passkey {row['id']}" in removed.output
    assert rows(app, Passkey.id) == []
    with app.app_context():
        event = db.session.scalars(select(AuditEvent).where(AuditEvent.action == "passkey.removed")).one()
        assert event.actor_id is None
    again = runner.invoke(args=["users", "passkeys", user.email, "--remove", str(row["id"])])
    assert again.exit_code == 1
    assert "has no passkeys" in runner.invoke(args=["users", "passkeys", user.email]).output


def test_the_admin_queue_counts_accounts_and_administrators_with_a_passkey(app, make_user):
    admin, user, _ = make_user(role="admin"), make_user(), make_user()
    for person in (admin, user, user):
        browser = fresh_browser(app)
        sign_in_session(browser, person)
        add_passkey(browser)
    desk = fresh_browser(app)
    sign_in_session(desk, admin)
    page = text_of(desk.get("/admin"))
    assert "<strong>2</strong> akun memiliki passkey" in page
    assert "<strong>1</strong> administrator" in page
