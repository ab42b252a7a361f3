"""Server-side sessions: the cookie names a record, and ending the record ends every copy of the cookie."""
from datetime import timedelta

from sqlalchemy import func, select

from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.sessions.models import UserSession
from tests.support.factories import PASSWORD
from tests.support.pages_support import csrf_token, post_form, sign_in, start_session_record, text_of
from tests.support.signin_support import BROWSER_UA, PHONE_UA, enable_2fa

COOKIE = "guardsvc_session"
JSON = {"Accept": "application/json"}
TOKENS_API = "/api/auth/tokens"


def copy_of(app, browser):
    """A second client that holds a copy of ``browser``'s session cookie (a stolen cookie)."""
    thief = app.test_client()
    thief.set_cookie(COOKIE, browser.get_cookie(COOKIE).value)
    return thief


def session_count(app, user):
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(UserSession)
                                 .where(UserSession.user_id == user.id))


def is_signed_out(client):
    page = client.get("/akun")
    api = client.get(TOKENS_API, headers=JSON)
    return page.status_code == 302 and "/masuk" in page.headers["Location"] and api.status_code == 401


def test_a_copied_cookie_stops_working_at_sign_out(app, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    thief = copy_of(app, browser)
    assert thief.get("/akun").status_code == 200
    assert thief.get(TOKENS_API, headers=JSON).status_code == 200
    assert post_form(browser, "/keluar", page="/akun").status_code == 303
    assert is_signed_out(thief) and is_signed_out(browser)
    assert session_count(app, user) == 0


def test_signing_in_again_starts_a_fresh_record_and_ends_the_old_one(app, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    before = copy_of(app, browser)
    again = post_form(browser, "/masuk", {"email": user.email, "password": PASSWORD}, page="/banding")
    assert again.status_code == 303
    assert is_signed_out(before)
    assert browser.get("/akun").status_code == 200
    assert session_count(app, user) == 1


def test_a_disabled_account_has_no_working_session(app, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    with app.app_context():
        db.session.get(User, user.id).is_active = False
        db.session.commit()
    assert is_signed_out(browser)


def test_an_idle_session_expires_and_is_purged(app, runner, make_user, monkeypatch):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    idle = timedelta(days=app.config["SESSION_IDLE_DAYS"])
    start = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: start + idle - timedelta(minutes=5))
    assert browser.get("/akun").status_code == 200  # still alive, and seen again now
    monkeypatch.setattr(clock, "utcnow", lambda: start + 2 * idle - timedelta(minutes=10))
    assert browser.get("/akun").status_code == 200
    monkeypatch.setattr(clock, "utcnow", lambda: start + 3 * idle)
    assert is_signed_out(browser)
    result = runner.invoke(args=["sessions", "purge"])
    assert result.exit_code == 0 and "deleted 1 expired session" in result.output
    assert session_count(app, user) == 0


def test_last_seen_is_written_at_most_once_a_minute(app, make_user, monkeypatch):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)

    def last_seen():
        with app.app_context():
            return db.session.scalar(select(UserSession.last_seen_at).where(UserSession.user_id == user.id))

    started = last_seen()
    monkeypatch.setattr(clock, "utcnow", lambda: started + timedelta(seconds=30))
    browser.get("/akun")
    assert last_seen() == started
    monkeypatch.setattr(clock, "utcnow", lambda: started + timedelta(seconds=90))
    browser.get("/akun")
    assert last_seen() == started + timedelta(seconds=90)


def test_the_account_page_lists_the_sessions(app, make_user):
    user = make_user()
    start_session_record(app, user, ip="203.0.113.9", user_agent=PHONE_UA)
    browser = app.test_client()
    browser.environ_base["HTTP_USER_AGENT"] = BROWSER_UA
    sign_in(browser, user)
    html = text_of(browser.get("/akun"))
    section = html[html.index('id="sesi"'):html.index("</section>", html.index('id="sesi"'))]
    assert "Chrome di Android" in section and "203.0.113.9" in section
    assert "Chrome di Windows" in section and section.count("Sesi ini") == 1
    assert section.count(">Akhiri sesi</button>") == 1  # only the other one has the button
    assert "Keluar dari semua perangkat lain" in section


def test_ending_another_session_from_the_account_page_kills_it(app, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    other = app.test_client()
    sign_in(other, user)
    with app.app_context():
        other_id = db.session.scalars(select(UserSession.id).where(UserSession.user_id == user.id)
                                      .order_by(UserSession.id.desc())).first()
    response = post_form(browser, f"/akun/sesi/{other_id}/akhiri", page="/akun")
    assert response.status_code == 303 and response.headers["Location"].endswith("/akun#sesi")
    assert is_signed_out(other)
    assert browser.get("/akun").status_code == 200


def test_a_session_of_another_account_cannot_be_ended(app, make_user):
    owner, stranger = make_user(), make_user()
    _, foreign_id = start_session_record(app, stranger)
    browser = app.test_client()
    sign_in(browser, owner)
    assert post_form(browser, f"/akun/sesi/{foreign_id}/akhiri", page="/akun").status_code == 404
    assert session_count(app, stranger) == 1


def test_sign_out_of_every_other_device_keeps_this_one(app, make_user):
    user = make_user()
    others = [app.test_client() for _ in range(2)]
    for other in others:
        sign_in(other, user)
    browser = app.test_client()
    sign_in(browser, user)
    assert post_form(browser, "/akun/sesi/akhiri-lainnya", page="/akun").status_code == 303
    assert all(is_signed_out(other) for other in others)
    assert browser.get("/akun").status_code == 200 and session_count(app, user) == 1


def test_ending_sessions_needs_csrf(app, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    csrf_token(browser, "/akun")
    assert browser.post("/akun/sesi/akhiri-lainnya").status_code == 400
    assert browser.post("/keluar").status_code == 400
    assert session_count(app, user) == 1


def test_the_password_step_of_another_account_ends_this_browsers_session(app, make_user):
    first, second = make_user(), make_user()
    enable_2fa(app, second)
    browser = app.test_client()
    sign_in(browser, first)
    response = post_form(browser, "/masuk", {"email": second.email, "password": PASSWORD}, page="/banding")
    assert response.status_code == 303 and response.headers["Location"].endswith("/masuk/kode")
    assert session_count(app, first) == 0 and session_count(app, second) == 0


def test_a_session_only_read_is_not_sent_again_but_varies_by_its_cookie(app, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    read = browser.get(TOKENS_API, headers=JSON)  # signed in: the session is read, not written
    assert read.status_code == 200
    assert "Set-Cookie" not in read.headers and "Cookie" in read.headers.get("Vary", "")
    assert post_form(browser, "/keluar", page="/akun").headers.get("Set-Cookie", "").startswith(COOKIE)
    anonymous = app.test_client().get("/api/guard/unblock-tickets/check/TKT-00000000", headers=JSON)
    assert anonymous.status_code == 404 and "Set-Cookie" not in anonymous.headers


def test_a_session_ends_its_absolute_lifetime_after_sign_in_however_active(app, client, make_user, monkeypatch):
    from datetime import timedelta

    from guardsvc.storage import clock
    from tests.support.pages_support import sign_in_session

    assert app.config["SESSION_ABSOLUTE_DAYS"] == 30
    sign_in_session(client, make_user())
    start = clock.utcnow()
    for day in (10, 20, 29):  # active every ten days: never idle
        monkeypatch.setattr(clock, "utcnow", lambda day=day: start + timedelta(days=day))
        assert client.get("/akun").status_code == 200
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=30, minutes=1))
    assert client.get("/akun").status_code == 302


def test_behind_a_prefix_guardsvc_cookies_never_reach_the_application_beside_it():
    from guardsvc import create_app

    proxied = create_app({"TESTING": True, "PROXY_COUNT": 1}).test_client()
    behind = proxied.get("/masuk", headers={"X-Forwarded-For": "203.0.113.5", "X-Forwarded-Prefix": "/guardsvc"})
    [session_cookie] = [value for value in behind.headers.getlist("Set-Cookie")
                        if value.startswith("guardsvc_session=")]
    assert "Path=/guardsvc" in session_cookie  # the browser sends it to /guardsvc/... only
    direct = create_app({"TESTING": True}).test_client().get("/masuk")
    assert any(value.startswith("guardsvc_session=") and "Path=/;" in value
               for value in direct.headers.getlist("Set-Cookie"))


def test_a_request_without_cookies_opens_the_session_flask_would(app):
    """The shortcut for a request that sends no cookie answers as Flask's own interface does."""
    from flask.sessions import SecureCookieSessionInterface
    from flask import request

    ours, flasks = app.session_interface, SecureCookieSessionInterface()
    with app.test_request_context("/api/guard/unblock-tickets/check/TKT-0000000A"):
        opened, expected = ours.open_session(app, request), flasks.open_session(app, request)
        assert type(opened) is type(expected) and dict(opened) == dict(expected) == {}
        assert not (opened.modified or opened.accessed or opened.new != expected.new)
    with app.test_request_context("/", headers={"Cookie": f"{COOKIE}=rusak"}):
        assert dict(ours.open_session(app, request)) == {}  # a bad signature: a new session too
    secret, app.secret_key = app.secret_key, None
    try:
        with app.test_request_context("/"):
            assert ours.open_session(app, request) is None is flasks.open_session(app, request)
    finally:
        app.secret_key = secret
