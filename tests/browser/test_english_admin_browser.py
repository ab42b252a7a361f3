"""The signed-in side in English on a phone: sign in, the account page, and an administrator's desk."""
import re

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import shoot
from tests.browser.test_english_browser import PHONE, fits_the_screen
from tests.support.factories import PASSWORD, submit_body

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]
# Words of the account and administrator pages that must not be left on an English page.
INDONESIAN = ("Kata sandi", "Masuk", "Keluar", "Akun saya", "Perangkat", "Sesi", "Token akses", "Antrean",
              "Tiket", "Setujui", "Tolak", "Catatan", "Blokir", "Riwayat", "Menunggu", "Pemohon", "Alasan",
              "Simpan", "Verifikasi", "(opsional)", "Maks.", "Belum", "Kesalahan")


def no_indonesian_of_ours(page):
    text = page.locator("body").inner_text()
    left = [word for word in INDONESIAN if re.search(rf"\b{re.escape(word)}\b", text)]
    assert left == [], left


def test_an_english_browser_signs_in_and_decides_in_english(new_page, live_server, make_user, make_block):
    admin = make_user(name="Rina Admin", role="admin")
    make_block(device_id="dev-english", reason="Too many sign-in attempts")
    number = requests.post(live_server.url + "/api/guard/unblock-tickets/submit", timeout=10,
                           headers={"X-Device-Id": "dev-english", "Accept-Language": "en"},
                           json=submit_body(reason="I travel a lot and share hotel networks.")).json()["ticket_number"]
    page = new_page(viewport=PHONE, locale="en-US")  # the browser asks for English; no switch pressed

    page.goto("/masuk")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_label("Email address").fill(admin.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page).to_have_url(re.compile(r"/akun$"))
    expect(page.get_by_role("heading", name="My account")).to_be_visible()
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    shoot(page, "en-account")

    page.goto("/admin")
    expect(page.get_by_role("heading", name="Ticket queue")).to_be_visible()
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    shoot(page, "en-admin-queue")

    page.get_by_role("link", name=number).click()
    expect(page.get_by_text("The appellant will read this note")).to_be_visible()
    page.get_by_label("Notes").fill("Lifted, sorry for the trouble.")
    no_indonesian_of_ours(page)
    shoot(page, "en-admin-ticket")
    page.get_by_role("button", name="Approve and lift the block").click()
    expect(page.get_by_role("status").first).to_contain_text(f"Ticket {number} approved")
    fits_the_screen(page)
    shoot(page, "en-admin-ticket-approved")

    # The switch turns the same desk Indonesian, and the choice outlives the browser's preference.
    page.get_by_role("button", name="Bahasa Indonesia").click()
    expect(page.locator("html")).to_have_attribute("lang", "id")
    expect(page.get_by_role("button", name="English")).to_be_visible()
    page.goto("/admin")
    expect(page.get_by_role("heading", name="Antrean tiket")).to_be_visible()
