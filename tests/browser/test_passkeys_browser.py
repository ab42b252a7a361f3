"""Passkeys in a real browser: Chromium's virtual authenticator (DevTools protocol), no hardware, no network.

WebAuthn needs a secure context and a relying party id that is a domain: the
server is reached as http://localhost:PORT, which its BASE_URL names too.
"""
import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import update

from guardsvc.extensions import db
from guardsvc.sessions.models import UserSession
from guardsvc.storage import clock
from tests.browser.conftest import SCREENSHOTS, fill_sign_in, shoot
from tests.support.live import LiveServer, free_port
from tests.support.signin_support import enable_2fa, totp_code

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


@pytest.fixture(scope="module")
def localhost_server(app):
    port = free_port()
    server = LiveServer(workers=1, port=port, env={"GUARDSVC_BASE_URL": f"http://localhost:{port}"})
    yield f"http://localhost:{port}"
    server.stop()


@pytest.fixture()
def open_browser(chromium, localhost_server):
    """``open_browser()`` -> a page in a fresh profile with a virtual platform authenticator of its own."""
    contexts = []

    def make():
        context = chromium.new_context(base_url=localhost_server, viewport={"width": 1280, "height": 900},
                                       locale="id-ID")
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        devtools = context.new_cdp_session(page)
        devtools.send("WebAuthn.enable", {"enableUI": False})
        devtools.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
            "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}})
        return page

    yield make
    for context in contexts:
        context.close()


def sign_out(page):
    page.get_by_role("button", name="Keluar", exact=True).click()
    expect(page.get_by_role("navigation").get_by_role("link", name="Masuk")).to_be_visible()


def shoot_section(page, name):
    """The passkey part of /akun at a phone width and a desktop width."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#passkey").screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 900})


def forget_re_authentication(app, user):
    with app.app_context():
        long_ago = clock.utcnow() - timedelta(days=1)
        db.session.execute(update(UserSession).where(UserSession.user_id == user.id)
                           .values(reauthenticated_at=long_ago, second_factor_at=long_ago))
        db.session.commit()


def test_add_sign_in_with_it_use_it_as_second_factor_and_remove(app, open_browser, make_user):
    user = make_user(name="Sari Dewi")
    secret, _ = enable_2fa(app, user)
    page = open_browser()
    page.goto("/masuk")
    fill_sign_in(page, user.email)
    page.get_by_label("Kode verifikasi").fill(totp_code(secret))
    page.get_by_role("button", name="Verifikasi").click()
    expect(page).to_have_url(re.compile(r"/akun$"))

    page.get_by_label("Nama passkey").fill("Laptop kerja")
    page.get_by_role("button", name="Tambah passkey").click()
    expect(page.locator("#daftar-passkey li")).to_have_count(1)
    expect(page.locator("#daftar-passkey")).to_contain_text("Laptop kerja")
    shoot_section(page, "akun-passkey")

    # The passkey alone signs in: no e-mail, no password, no code.
    sign_out(page)
    page.goto("/masuk")
    expect(page.get_by_role("button", name="Masuk dengan passkey")).to_be_visible()
    shoot(page, "masuk-passkey")
    page.get_by_role("button", name="Masuk dengan passkey").click()
    expect(page).to_have_url(re.compile(r"/akun$"))
    expect(page.locator("#daftar-passkey")).not_to_contain_text("Belum pernah")

    # After the password, the passkey stands in for the code.
    sign_out(page)
    page.goto("/masuk")
    fill_sign_in(page, user.email)
    expect(page).to_have_url(re.compile(r"/masuk/kode$"))
    page.get_by_role("button", name="Gunakan passkey").click()
    expect(page).to_have_url(re.compile(r"/akun$"))

    # Re-authentication with the password and the passkey, then removal.
    forget_re_authentication(app, user)
    page.get_by_role("button", name="Hapus passkey").click()
    expect(page).to_have_url(re.compile(r"/akun/konfirmasi"))
    page.get_by_label("Kata sandi").fill("kata-sandi-rahasia-123")
    page.get_by_role("button", name="Gunakan passkey").click()
    expect(page).to_have_url(re.compile(r"/akun#passkey$"))
    page.get_by_role("button", name="Hapus passkey").click()
    expect(page.locator("#daftar-passkey")).to_have_text("Belum ada passkey.")

    # A browser that never held the passkey cannot sign in with it.
    stranger = open_browser()
    stranger.goto("/masuk")
    stranger.get_by_role("button", name="Masuk dengan passkey").click()
    expect(stranger.locator("#masuk-passkey-status")).to_contain_text(
        "perangkat ini tidak menyimpan passkey untuk akun ini")
    expect(stranger).to_have_url(re.compile(r"/masuk$"))
