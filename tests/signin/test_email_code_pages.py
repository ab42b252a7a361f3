"""The e-mailed sign-in code in the pages: /masuk, /masuk/kode-email, the history and the trusted devices."""
import html
import re

import pytest
from sqlalchemy import select, update

from guardsvc.extensions import db
from guardsvc.outbox.delivery import deliver_due
from guardsvc.outbox.models import OutboxMessage
from guardsvc.signin.models import EmailVerification
from guardsvc.storage import clock
from tests.support.email_code_support import code_in, code_mails, last_code, token_from
from tests.support.email_code_support import jakartan  # noqa: F401  (fixture)
from tests.support.factories import PASSWORD
from tests.support.geoip_support import AMSTERDAM, JAKARTA, TOKYO, geoip_database, located  # noqa: F401
from tests.support.pages_support import post_form, text_of
from tests.support.signin_support import BROWSER_UA, rate_limits_off  # noqa: F401
from tests.support.smtp import smtp_server, text_body  # noqa: F401

pytestmark = pytest.mark.usefixtures("located", "rate_limits_off")
CODE_PAGE = "/masuk/kode-email"



def browser_at(app, ip, language=None):
    browser = app.test_client()
    browser.environ_base.update({"HTTP_USER_AGENT": BROWSER_UA, "REMOTE_ADDR": ip})
    if language:
        browser.set_cookie("guardsvc_lang", language)
    return browser


def password_step(browser, user):
    return post_form(browser, "/masuk", {"email": user.email, "password": PASSWORD}, page="/masuk")


def code_step(browser, code):
    return post_form(browser, CODE_PAGE, {"code": code}, page=CODE_PAGE)


def page(browser, path=CODE_PAGE):
    """The page's text, tags left out (a place is in bold)."""
    return html.unescape(re.sub(r"<(?!/?li\b)[^>]+>", "", text_of(browser.get(path))))


def test_a_new_country_sends_the_browser_to_the_code_page_and_the_code_signs_in(app, jakartan):
    browser = browser_at(app, AMSTERDAM)
    answer = password_step(browser, jakartan)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(CODE_PAGE)
    assert browser.get("/akun").status_code in (302, 303)  # not signed in yet
    shown = page(browser)
    assert "Amsterdam, Belanda" in shown and "sari@example.com" in shown
    assert "E-mail berisi kode sedang dikirim" in shown
    wrong = code_step(browser, "1234 5678")
    assert wrong.status_code == 401 and "Kode dari e-mail salah." in text_of(wrong)
    right = code_step(browser, last_code(app, jakartan.email))
    assert right.status_code == 303 and right.headers["Location"].endswith("/akun")
    account = page(browser, "/akun")
    assert "Berhasil masuk dengan kode dari e-mail" in account and "Amsterdam, Belanda" in account
    assert "Kode dari e-mail salah" in account and "Jakarta, Indonesia" in account


def test_the_page_in_english(app, jakartan):
    browser = browser_at(app, TOKYO, language="en")
    password_step(browser, jakartan)
    shown = page(browser)
    assert "Check your email" in shown and "This account has not signed in from Tokyo, Japan" in shown
    code_step(browser, last_code(app, jakartan.email))
    account = page(browser, "/akun")
    assert "Signed in with the code from the email" in account and "Tokyo, Japan" in account
    assert "Location" in account


def test_a_mail_outage_is_said_honestly_and_loses_nothing(app, jakartan, smtp_server):
    browser = browser_at(app, AMSTERDAM)
    password_step(browser, jakartan)
    smtp_server.stop()
    with app.app_context():
        report = deliver_due()
    assert report.retrying and not report.sent
    shown = page(browser)
    assert "Server e-mail belum dapat dihubungi" in shown and "Anda belum masuk" in shown
    assert token_from(app.test_client(), jakartan.email, AMSTERDAM).get_json()["email_delivery"] == "retrying"
    smtp_server.start()
    with app.app_context():
        db.session.execute(update(OutboxMessage).values(next_attempt_at=clock.utcnow()))  # the retry is due
        db.session.commit()
        assert deliver_due().sent
    assert "E-mail berisi kode sudah dikirim" in page(browser)
    [message] = smtp_server.inbox.to(jakartan.email, "Kode untuk masuk")
    assert "Amsterdam, Belanda" in message["Subject"]
    assert code_step(browser, code_in(text_body(message))).status_code == 303


def test_a_new_code_at_most_once_a_minute_and_the_old_one_stops_working(app, jakartan):
    browser = browser_at(app, AMSTERDAM)
    password_step(browser, jakartan)
    first = last_code(app, jakartan.email)
    too_soon = post_form(browser, CODE_PAGE + "/baru", page=CODE_PAGE, follow_redirects=True)
    assert "kurang dari satu menit" in html.unescape(text_of(too_soon))
    with app.app_context():
        db.session.execute(update(EmailVerification).values(created_at=clock.utcnow().replace(year=2020)))
        db.session.commit()
    again = post_form(browser, CODE_PAGE + "/baru", page=CODE_PAGE, follow_redirects=True)
    assert "Kode baru sudah dikirim" in text_of(again)
    assert len(code_mails(app, jakartan.email)) == 2
    assert code_step(browser, first).status_code == 401
    assert code_step(browser, last_code(app, jakartan.email)).status_code == 303
    with app.app_context():
        assert sorted(db.session.scalars(select(EmailVerification.state))) == ["replaced", "used"]


def test_without_a_pending_sign_in_the_code_page_sends_back_to_masuk(app):
    browser = browser_at(app, AMSTERDAM)
    answer = browser.get(CODE_PAGE)
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/masuk")


def test_the_trusted_device_list_names_the_place(app, jakartan):
    browser = browser_at(app, JAKARTA)
    password_step(browser, jakartan)
    post_form(browser, "/akun/perangkat", {"device_name": "Laptop rumah"}, page="/akun")
    shown = page(browser, "/akun")
    assert "Laptop rumah" in shown
    device = shown[shown.index("Laptop rumah"):]
    assert "Jakarta, Indonesia" in device[:device.index("</li>")]
