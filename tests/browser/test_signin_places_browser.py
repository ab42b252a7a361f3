"""A sign-in from a new country in a real browser: the e-mailed-code page and the located history, at a
phone and a desktop width, in Indonesian and English; axe finds nothing on either page."""
import re

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import fill_sign_in, shoot
from tests.browser.test_accessibility import violations
from tests.support.email_code_support import age_history, last_code
from tests.support.factories import PASSWORD
from tests.support.geoip_support import AMSTERDAM, JAKARTA, TOKYO, geoip_database  # noqa: F401
from tests.support.live import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


@pytest.fixture(scope="module")
def located_server(app, geoip_database):
    server = LiveServer(workers=1, env={"GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_GEOIP_DATABASE": str(geoip_database)})
    yield server
    server.stop()


@pytest.fixture()
def browser_from(chromium, located_server):
    """``browser_from(ip, language)``: a page in a fresh profile, its requests coming (through the proxy) from ``ip``."""
    contexts = []

    def make(ip, language="id"):
        context = chromium.new_context(base_url=located_server.url, viewport={"width": 1280, "height": 900},
                                       locale="id-ID", extra_http_headers={"X-Forwarded-For": ip})
        context.add_cookies([{"name": "guardsvc_lang", "value": language, "url": located_server.url}])
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture()
def jakartan(app, located_server, make_user):
    user = make_user(email="sari@example.com", name="Sari Dewi")
    answer = requests.post(located_server.url + "/api/auth/tokens", headers={"X-Forwarded-For": JAKARTA},
                           json={"email": user.email, "password": PASSWORD}, timeout=30)
    assert answer.status_code == 201
    age_history(app, user, days=1)
    return user


def test_the_code_page_and_the_located_history(app, browser_from, jakartan):
    page = browser_from(AMSTERDAM)
    page.goto("/masuk")
    fill_sign_in(page, jakartan.email)
    expect(page).to_have_url(re.compile(r"/masuk/kode-email$"))
    expect(page.locator("#tempat-masuk")).to_have_text("Amsterdam, Belanda")
    expect(page.get_by_label("Kode dari e-mail")).to_be_focused()
    assert violations(page) == []
    shoot(page, "masuk-kode-email")
    page.get_by_label("Kode dari e-mail").fill("1234 5678")
    page.get_by_role("button", name="Verifikasi").click()
    expect(page.locator("#gagal-kode-email")).to_have_text("Kode dari e-mail salah.")
    shoot(page, "masuk-kode-email-salah")
    page.get_by_label("Kode dari e-mail").fill(last_code(app, jakartan.email))
    page.get_by_role("button", name="Verifikasi").click()
    expect(page).to_have_url(re.compile(r"/akun$"))
    history = page.locator("table.history")
    expect(history.locator("tbody tr").first).to_contain_text("Amsterdam, Belanda")
    expect(history).to_contain_text("Jakarta, Indonesia")
    assert violations(page) == []
    page.locator("#riwayat-masuk").scroll_into_view_if_needed()
    shoot(page, "akun-riwayat-masuk-lokasi")


def test_the_code_page_in_english(app, browser_from, jakartan):
    page = browser_from(TOKYO, "en")
    page.goto("/masuk")
    page.locator("#email").fill(jakartan.email)
    page.locator("#password").fill(PASSWORD)
    page.locator('form[action="/masuk"] button[type="submit"]').click()
    expect(page.locator("#tempat-masuk")).to_have_text("Tokyo, Japan")
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    assert violations(page) == []
    shoot(page, "masuk-kode-email-en")
