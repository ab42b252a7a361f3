"""The first hour in a real browser: what a newcomer, a signed-in person and an administrator meet.

Passkeys at an address no browser accepts, trusting a browser right after turning 2FA on, a name
that waits through a confirmation, the appeal form's language switch and minimum fill time, the
desk in the reader's words, static files kept by the browser. Screenshots at 375 and 1280 px in
both languages; axe on every new state.
"""
import re
import time
from datetime import timedelta

import pytest
import requests
from playwright.sync_api import expect
from sqlalchemy import func, select, update

from guardsvc.extensions import db
from guardsvc.sessions.models import UserSession
from guardsvc.storage import clock
from guardsvc.trust.models import TrustedIp
from tests.browser.conftest import fill_sign_in, shoot
from tests.browser.test_accessibility import violations
from tests.support.factories import PASSWORD, submit_body
from tests.support.live import LiveServer, free_port
from tests.support.signin_support import enable_2fa, totp_code

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]
TYPED = {"name": "Budi Santoso", "email": "budi@example.com",
         "reason": "Saya memakai wifi kantor bersama.\nMohon dibuka."}


@pytest.fixture(scope="module")
def first_try_server(app):
    """A server whose address is an IP (as the README used to say) and whose appeal form waits 3 s."""
    port = free_port()
    server = LiveServer(workers=1, port=port, env={"GUARDSVC_BASE_URL": f"http://127.0.0.1:{port}",
                                                   "GUARDSVC_APPEAL_MIN_FILL_SECONDS": "3"})
    yield server
    server.stop()


def switch_language(page):
    """Press the header's switch; returns the language the page is in afterwards."""
    before = page.locator("html").get_attribute("lang")
    page.locator(".language-button").click()
    expect(page.locator("html")).not_to_have_attribute("lang", before)
    return page.locator("html").get_attribute("lang")


def shoot_both(page, name, part=None):
    """Screenshots in the page's language and, by the header's switch, in the other; then back."""
    for _ in range(2):
        language = page.locator("html").get_attribute("lang")
        if part:
            part.scroll_into_view_if_needed()
        shoot(page, f"{name}-{language}")
        switch_language(page)


def no_violations(page, what):
    found = violations(page)
    assert found == [], f"{what}: {found}"


def test_passkeys_explain_themselves_at_an_ip_address(new_page, first_try_server, make_user):
    page = new_page(first_try_server.url)
    page.goto("/masuk")
    note = page.locator("#masuk-passkey-unavailable")
    expect(note).to_contain_text("bukan di alamat IP seperti 127.0.0.1")
    expect(note).to_contain_text("bukan kesalahan Anda")
    expect(note.get_by_role("link")).to_have_attribute("href", re.compile(r"^http://localhost:\d+$"))
    assert page.locator("[data-passkey]").count() == 0
    no_violations(page, "/masuk at an IP address")
    shoot_both(page, "masuk-passkey-alamat-ip")
    fill_sign_in(page, make_user(name="Sari Dewi").email)
    expect(page).to_have_url(re.compile(r"/akun$"))
    expect(page.locator("#tambah-passkey-unavailable")).to_be_visible()
    assert page.locator("#mulai-passkey").count() == 0
    shoot_both(page, "akun-passkey-alamat-ip", page.locator("#passkey"))
    switch_language(page)
    expect(page.locator("#tambah-passkey-unavailable")).to_contain_text("not at an IP address such as 127.0.0.1")


def test_a_page_opened_at_another_name_points_to_the_address_passkeys_work_at(new_page, live_server):
    page = new_page(live_server.url)  # 127.0.0.1, while the service's address is localhost
    page.goto("/masuk")
    elsewhere = page.locator("#masuk-passkey-elsewhere")
    expect(elsewhere).to_be_visible()
    expect(elsewhere.get_by_role("link")).to_have_attribute("href", f"{live_server.browser_url}/masuk")
    expect(page.locator("#masuk-passkey")).to_be_hidden()
    no_violations(page, "/masuk at another name")
    shoot_both(page, "masuk-passkey-alamat-lain")


def test_trusting_this_browser_right_after_turning_2fa_on(app, page, make_user):
    user = make_user(name="Rina Wati")
    page.goto("/masuk")
    fill_sign_in(page, user.email)
    page.get_by_role("button", name="Siapkan verifikasi dua langkah").click()
    secret_key = page.locator("#kunci-rahasia")
    expect(secret_key.locator(".secret-group")).to_have_count(8)
    secret = secret_key.inner_text()
    assert re.fullmatch(r"[A-Z2-7]{32}", secret), secret  # copied whole, without the gaps
    page.set_viewport_size({"width": 375, "height": 800})
    box = secret_key.bounding_box()
    assert box["x"] + box["width"] <= 375 and box["height"] > 30  # wrapped between groups, inside the screen
    page.set_viewport_size({"width": 1280, "height": 900})
    no_violations(page, "2FA set-up")
    shoot_both(page, "akun-2fa-kunci-berkelompok", page.locator("#penyiapan-2fa"))
    page.get_by_label("Kode dari aplikasi").fill(totp_code(secret))
    page.get_by_role("button", name="Aktifkan").click()
    page.get_by_role("link", name="Saya sudah menyimpannya").click()

    page.get_by_label("Nama perangkat").fill("Laptop Rina")
    page.get_by_role("button", name="Percayai perangkat ini").click()
    expect(page).to_have_url(re.compile(r"/akun#perangkat$"))  # no confirmation, no second code
    expect(page.locator("#daftar-perangkat li")).to_have_count(1)
    expect(page.locator("#daftar-perangkat")).to_contain_text("Laptop Rina")
    expect(page.locator("#perangkat-ini-tepercaya")).to_contain_text("perangkat ini bernama Laptop Rina")
    expect(page.locator("#daftar-perangkat")).not_to_contain_text("IP lokal")
    shoot_both(page, "akun-perangkat-ini-bernama", page.locator("#perangkat"))
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(TrustedIp)) == 1


def test_the_typed_name_waits_through_the_confirmation(app, page, make_user):
    user = make_user(name="Dewi Lestari")
    secret, _ = enable_2fa(app, user)
    page.goto("/masuk")
    fill_sign_in(page, user.email)
    page.get_by_label("Kode verifikasi").fill(totp_code(secret))
    page.get_by_role("button", name="Verifikasi").click()
    expect(page).to_have_url(re.compile(r"/akun$"))
    with app.app_context():  # the sign-in's confirmation is long past
        long_ago = clock.utcnow() - timedelta(days=1)
        db.session.execute(update(UserSession).values(reauthenticated_at=long_ago, second_factor_at=long_ago))
        db.session.commit()
    page.get_by_label("Nama perangkat").fill("Ponsel Dewi")
    page.get_by_role("button", name="Percayai perangkat ini").click()
    expect(page).to_have_url(re.compile(r"/akun/konfirmasi"))
    page.get_by_label("Kata sandi").fill(PASSWORD)
    page.get_by_label("Kode verifikasi").fill(totp_code(secret, 1))
    page.get_by_role("button", name="Konfirmasi").click()
    expect(page).to_have_url(re.compile(r"/akun#perangkat$"))
    expect(page.get_by_label("Nama perangkat")).to_have_value("Ponsel Dewi")
    page.locator("#perangkat").scroll_into_view_if_needed()
    shoot(page, "akun-nama-menunggu-konfirmasi-id")
    page.get_by_role("button", name="Percayai perangkat ini").click()
    expect(page.locator("#daftar-perangkat li")).to_have_count(1)
    expect(page.locator("#daftar-perangkat")).to_contain_text("Ponsel Dewi")


@pytest.mark.parametrize("script", [True, False], ids=["with-script", "without-script"])
def test_the_language_switch_keeps_what_was_typed_in_the_appeal(new_page, script):
    page = new_page(java_script_enabled=script)
    page.goto("/banding")
    page.get_by_label("Nama lengkap").fill(TYPED["name"])
    page.get_by_label("Alamat e-mail").fill(TYPED["email"])
    page.get_by_label("Alasan permohonan").fill(TYPED["reason"])
    page.get_by_role("button", name="English").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Appeal a block")
    expect(page.get_by_label("Full name")).to_have_value(TYPED["name"])
    expect(page.get_by_label("Email address")).to_have_value(TYPED["email"])
    expect(page.get_by_label("Reason for your appeal")).to_have_value(TYPED["reason"])
    if script:
        shoot_both(page, "banding-ganti-bahasa-tetap-terisi")
    page.get_by_role("button", name="Bahasa Indonesia").click()
    expect(page.get_by_label("Nama lengkap")).to_have_value(TYPED["name"])


def test_an_appeal_sent_too_fast_says_so_and_goes_through_when_sent_again(new_page, first_try_server):
    for language in ("id", "en"):
        page = new_page(first_try_server.url, locale="en-GB" if language == "en" else "id-ID")
        page.goto("/banding")
        opened = time.monotonic()
        page.locator("#name").fill(TYPED["name"])  # pasted or autofilled: well within 3 s
        page.locator("#email").fill(TYPED["email"])
        page.locator("#reason").fill(TYPED["reason"])
        page.locator("#kirim").click()
        refused = page.locator("#permohonan-ditahan")
        expect(refused).to_contain_text("kurang dari 3 detik" if language == "id" else "less than 3 seconds")
        expect(page.locator("#reason")).to_have_value(TYPED["reason"])
        no_violations(page, f"too fast ({language})")
        shoot(page, f"banding-terlalu-cepat-{language}")
    time.sleep(max(0.0, 3.2 - (time.monotonic() - opened)))
    page.locator("#kirim").click()  # the same form, a moment later
    expect(page).to_have_url(re.compile(r"/banding/terkirim$"))


def test_the_desk_reads_in_the_readers_words(app, page, live_server, make_user, make_block):
    admin = make_user(role="admin", name="Admin Desk")
    reference = make_block(device_id="perangkat-budi", reason="Spam komentar")
    number = requests.post(live_server.url + "/api/guard/unblock-tickets/submit", timeout=10,
                           json=submit_body(), headers={"X-Device-Id": "perangkat-budi", "Accept-Language": "en"}
                           ).json()["ticket_number"]
    page.goto("/masuk")
    fill_sign_in(page, admin.email)
    page.goto(f"/admin/tiket/{number}")
    expect(page.locator("#bahasa-pemohon")).to_have_text("English")
    expect(page.locator(".appellant-language")).to_have_count(2)
    expect(page.locator(".appellant-language").first).to_contain_text("tanpa diterjemahkan")
    no_violations(page, "ticket with the appellant's language")
    shoot_both(page, "admin-tiket-bahasa-pemohon", page.locator(".decision-card"))
    page.locator("#setujui").click()
    page.goto(f"/admin/blokir?q={reference}")
    expect(page.locator(f"#{reference}")).to_contain_text(f"Banding {number} disetujui")
    switch_language(page)
    expect(page.locator(f"#{reference}")).to_contain_text(f"Appeal {number} approved")
    shoot_both(page, "admin-blokir-teks-tersimpan")
    page.goto("/admin/audit")
    table = page.locator("table")
    expect(table).to_contain_text("Ticket approved")
    expect(table).to_contain_text(f"Blocks lifted{reference}")
    expect(table).not_to_contain_text("ticket.approved")
    expect(table).not_to_contain_text("[]")
    no_violations(page, "audit log in English")
    shoot_both(page, "admin-audit-kata")
    switch_language(page)
    expect(table).to_contain_text("Tiket disetujui")
    expect(table).to_contain_text(f"Blokir yang dibuka{reference}")


def test_static_files_are_not_asked_for_again(page):
    """A second page asks the server for no CSS or script: the fingerprinted URLs are kept, unasked."""
    devtools = page.context.new_cdp_session(page)
    devtools.send("Network.enable")
    sent, cached = {}, set()
    devtools.on("Network.requestWillBeSent", lambda event: sent.update(
        {event["requestId"]: event["request"]["url"]} if "/static/" in event["request"]["url"] else {}))
    devtools.on("Network.requestServedFromCache", lambda event: cached.add(event["requestId"]))
    page.goto("/")
    first = dict(sent)
    assert len(first) == 3 and not cached  # css/site.css, js/site.js, js/passkeys.js, fetched once
    page.goto("/banding")
    page.goto("/banding/cek")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    later = {request_id for request_id in sent if request_id not in first}
    assert later and later <= cached  # every later use came from the browser's cache


def test_the_block_page_says_no_status_code(page, make_block):
    make_block(network="127.0.0.1", reason="Uji", minutes=60)
    page.goto("/akun")  # a guarded page (signing in is never guarded)
    expect(page.get_by_role("heading", level=1)).to_have_text("Akses Anda diblokir")
    expect(page.locator("main")).not_to_contain_text("403")
    shoot_both(page, "terblokir-tanpa-kode")
    expect(page.locator("main")).not_to_contain_text("403")
