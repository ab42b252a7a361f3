"""A security notice is queued, in the event's own transaction, for every sensitive account event."""
import pytest
from sqlalchemy import select

from guardsvc import messages
from guardsvc.accounts import notices
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.web.identity import Client
from guardsvc.outbox.models import OutboxMessage
from guardsvc.outbox.service import messages_to
from guardsvc.twofactor import service as twofactor
from tests.support.factories import PASSWORD
from tests.support.pages_support import post_form, sign_in
from tests.support.signin_support import BROWSER_UA, enable_2fa, rate_limits_off, request_token, totp_code  # noqa: F401

HERE = Client("203.0.113.9", "laptop-1", None, BROWSER_UA)
ACCOUNT_URL = "http://localhost:8000/akun"
FORGOT_URL = "http://localhost:8000/masuk/lupa"


def queued(app, email, kind):
    """The messages of ``kind`` queued for ``email``, oldest first."""
    with app.app_context():
        return messages_to(email, kind)


def queued_now(email, kind):
    """The message of ``kind`` to ``email`` queued in the current transaction."""
    return db.session.scalar(select(OutboxMessage).where(OutboxMessage.recipient == email,
                                                         OutboxMessage.kind == kind))


def assert_notice(message, subject, what, *, ip="203.0.113.9", device="Chrome di Windows"):
    """Says what happened, when, from where, and what to do if it was not the owner."""
    assert message.subject == subject
    text = message.body_text
    assert str(what) in text and " WIB" in text
    if ip is None:
        assert str(messages.NOTICE_BY_COMMAND_LINE) in text and "Alamat IP" not in text
    else:
        assert f"Alamat IP   : {ip}" in text and f"Perangkat   : {device}" in text
    assert "BUKAN SAYA?" in text and FORGOT_URL in text and ACCOUNT_URL in text
    html = message.body_html
    assert "Bukan saya?" in html and f'href="{FORGOT_URL}"' in html and f'href="{ACCOUNT_URL}"' in html


def browser_for(app, user):
    browser = app.test_client()
    browser.environ_base.update({"HTTP_USER_AGENT": BROWSER_UA, "REMOTE_ADDR": "203.0.113.9"})
    sign_in(browser, user)
    return browser


def test_password_changed_on_the_page(app, make_user):
    user = make_user()
    browser = browser_for(app, user)
    new = "kuda-laut-biru-2026"
    assert post_form(browser, "/akun/kata-sandi", {"current_password": PASSWORD, "new_password": new,
                                                   "confirmation": new}, page="/akun/kata-sandi").status_code == 303
    [message] = queued(app, user.email, "notice_password_changed")
    assert_notice(message, messages.NOTICE_PASSWORD_CHANGED_SUBJECT, messages.NOTICE_PASSWORD_CHANGED)


def test_a_refused_change_sends_nothing(app, make_user):
    user = make_user()
    browser = browser_for(app, user)
    refused = post_form(browser, "/akun/kata-sandi", {"new_password": "kuda-laut-biru-2026",
                                                      "confirmation": "kuda-laut-biru-2027"}, page="/akun/kata-sandi")
    assert refused.status_code == 422
    assert queued(app, user.email, "notice_password_changed") == []


def test_two_factor_on_off_and_new_recovery_codes(app, ctx, make_user):
    user = db.session.get(User, make_user().id)
    enrolment = twofactor.begin_enrolment(user)
    twofactor.confirm_enrolment(user, totp_code(enrolment.secret), client=HERE)
    twofactor.regenerate_recovery_codes(user, PASSWORD, client=HERE)
    twofactor.disable(user, PASSWORD, client=HERE)
    db.session.commit()
    for kind, subject, what in (
            ("notice_2fa_enabled", messages.NOTICE_2FA_ON_SUBJECT, messages.NOTICE_2FA_ON),
            ("notice_recovery_codes", messages.NOTICE_RECOVERY_CODES_SUBJECT, messages.NOTICE_RECOVERY_CODES),
            ("notice_2fa_disabled", messages.NOTICE_2FA_OFF_SUBJECT, messages.NOTICE_2FA_OFF)):
        [message] = queued(app, user.email, kind)
        assert_notice(message, subject, what)


def test_cancelling_an_unconfirmed_set_up_is_not_a_notice(app, ctx, make_user):
    user = db.session.get(User, make_user().id)
    twofactor.begin_enrolment(user)
    twofactor.disable(user, PASSWORD, client=HERE)
    db.session.commit()
    assert queued(app, user.email, "notice_2fa_disabled") == []


@pytest.mark.usefixtures("rate_limits_off")
def test_new_token_from_the_page_the_api_and_the_command_line(app, client, runner, make_user):
    user = make_user()
    browser = browser_for(app, user)
    assert post_form(browser, "/akun/token", {"name": "skrip <b>cadangan</b>"}, page="/akun").status_code == 303
    assert request_token(client, user.email).status_code == 201
    assert runner.invoke(args=["tokens", "create", user.email, "--name", "ci.example.com"]).exit_code == 0
    page, api, cli = queued(app, user.email, "notice_token_created")
    assert_notice(page, messages.NOTICE_TOKEN_SUBJECT, messages.NOTICE_TOKEN)
    assert "Nama token : skrip <b>cadangan</b>" in page.body_text
    assert "skrip &lt;b&gt;cadangan&lt;/\u200db&gt;" in page.body_html and "<b>cadangan" not in page.body_html
    assert_notice(api, messages.NOTICE_TOKEN_SUBJECT, messages.NOTICE_TOKEN, ip="198.51.100.20")
    assert_notice(cli, messages.NOTICE_TOKEN_SUBJECT, messages.NOTICE_TOKEN, ip=None)
    # A name that looks like a host is never a link in HTML: joined apart, inside a span.
    assert "ci.example.com" in cli.body_text
    assert "ci.example.com" not in cli.body_html
    assert '<span class="data">ci.\u200dexample.\u200dcom</span>' in cli.body_html


def test_new_trusted_device_on_the_page(app, make_user):
    user = make_user()
    browser = browser_for(app, user)
    assert post_form(browser, "/akun/perangkat", {"device_name": "Laptop kantor"}, page="/akun").status_code == 303
    [message] = queued(app, user.email, "notice_device_trusted")
    assert_notice(message, messages.NOTICE_TRUSTED_DEVICE_SUBJECT, messages.NOTICE_TRUSTED_DEVICE)
    assert "Nama perangkat : Laptop kantor" in message.body_text
    # Trusting the same device again only refreshes it: no second notice.
    post_form(browser, "/akun/perangkat", {"device_name": ""}, page="/akun")
    assert len(queued(app, user.email, "notice_device_trusted")) == 1


def test_account_disabled_and_2fa_reset_on_the_command_line(app, runner, make_user):
    user = make_user()
    enable_2fa(app, user)
    assert runner.invoke(args=["users", "reset-2fa", user.email]).exit_code == 0
    assert runner.invoke(args=["users", "disable", user.email]).exit_code == 0
    [reset] = queued(app, user.email, "notice_2fa_reset")
    assert_notice(reset, messages.NOTICE_2FA_RESET_SUBJECT, messages.NOTICE_2FA_RESET, ip=None)
    [disabled] = queued(app, user.email, "notice_account_disabled")
    assert_notice(disabled, messages.NOTICE_DISABLED_SUBJECT, messages.NOTICE_DISABLED, ip=None)


def test_password_reset_notice_names_where_the_link_was_used(app, ctx, make_user):
    from guardsvc.accounts import resets

    user = make_user()
    resets.request_reset(user.email, HERE)
    secret = queued_now(user.email, "password_reset").body_text.split("/masuk/atur-ulang/", 1)[1].split()[0]
    phone = Client("192.0.2.44", None, None, "Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0")
    assert resets.complete_reset(secret, "kuda-laut-biru-2026", "kuda-laut-biru-2026", phone)[1] is None
    db.session.commit()
    [message] = queued(app, user.email, "notice_password_reset")
    assert_notice(message, messages.NOTICE_PASSWORD_RESET_SUBJECT, messages.NOTICE_PASSWORD_RESET,
                  ip="192.0.2.44", device="Firefox di Android")


@pytest.mark.parametrize(("text", "html"), [
    ("Laptop", '<span class="data">Laptop</span>'),
    ("evil.example.com", '<span class="data">evil.\u200dexample.\u200dcom</span>'),
    ("https://x.io/a", '<span class="data">https:\u200d/\u200d/\u200dx.\u200dio/\u200da</span>'),
    ("a@b.co", '<span class="data">a@\u200db.\u200dco</span>'),
    ("host:80\\share", '<span class="data">host:\u200d80\\\u200dshare</span>'),
    ('<a href="x">', '<span class="data">&lt;a href=&#34;x&#34;&gt;</span>'),
    (None, ""),
])
def test_user_text_in_html_is_escaped_and_never_a_link(text, html):
    assert str(notices.unlinkable(text)) == html


def test_a_notice_is_only_kept_when_its_event_commits(app, make_user):
    user = make_user()
    with app.app_context():
        record = db.session.get(User, user.id)
        notices.password_changed(record, client=HERE)
        db.session.rollback()
    assert queued(app, user.email, "notice_password_changed") == []
