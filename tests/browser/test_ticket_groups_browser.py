"""A wave of appeals on the desk, in a real browser: one line, one group page, one confirmed decision; the
service levels beside the queue; every new page accessible (axe) in both languages, at a phone and a desktop width."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fill_sign_in, shoot
from tests.browser.test_accessibility import LANGUAGES, check, in_language, sign_in_by_ids, violations
from tests.browser.test_english_browser import PHONE, fits_the_screen
from tests.admin.test_ticket_groups import RANGE, appeal

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


def wave(app, make_block, count):
    reference = make_block(network=RANGE, reason="Daftar komunitas")
    for number in range(1, count + 1):
        appeal(app, f"198.51.100.{number}", f"hp-{number}", language="en" if number % 2 == 0 else "id",
               reason=f"Kampus kami memakai satu alamat keluar. Saya mahasiswa nomor {number}.")
    return reference


def test_an_administrator_decides_a_wave_as_one(page, app, make_user, make_block):
    admin = make_user(name="Rina Admin", role="admin")
    reference = wave(app, make_block, 6)
    appeal(app, "100.64.0.1")
    page.goto("/admin")
    fill_sign_in(page, admin.email)
    expect(page).to_have_url(re.compile(r"/admin$"))
    expect(page.get_by_role("heading", name="Tingkat layanan")).to_be_visible()
    expect(page.locator(".age-chart")).to_be_visible()
    line = page.locator(f"#kelompok-{reference}")
    expect(line).to_contain_text(RANGE)
    expect(line).to_contain_text("6")
    shoot(page, "admin-antrean-kelompok")

    line.get_by_role("link", name=reference).click()
    expect(page.get_by_role("heading", name=f"Kelompok blokir {reference}")).to_be_visible()
    expect(page.locator(".group-tickets tbody tr")).to_have_count(6)
    expect(page.locator(".group-tickets")).to_contain_text("Saya mahasiswa nomor 4.")
    expect(page.locator(".group-tickets")).to_contain_text("English")
    page.get_by_label("Setujui semua: daftar itu salah mengenai orang-orang ini").check()
    page.get_by_label("Catatan untuk para pemohon").fill("Alamat kampus Anda masuk daftar secara keliru. Maaf.")
    shoot(page, "admin-kelompok")
    page.get_by_role("button", name="Lanjut ke konfirmasi").click()

    expect(page.get_by_role("heading", name="Anda akan menyetujui 6 tiket.")).to_be_visible()
    shoot(page, "admin-kelompok-konfirmasi")
    page.get_by_role("button", name="Ya, setujui 6 tiket").click()
    expect(page).to_have_url(re.compile(r"/admin/kelompok$"))
    expect(page.get_by_role("status").first).to_contain_text(f"Tiket untuk blokir {reference} disetujui: 6.")
    expect(page.locator(f"#kelompok-{reference}")).to_have_count(0)
    shoot(page, "admin-kelompok-diputuskan")


def test_the_group_pages_fit_a_phone(new_page, app, make_user, make_block):
    admin = make_user(role="admin")
    reference = wave(app, make_block, 3)
    page = new_page(viewport=PHONE)
    page.goto("/masuk")
    fill_sign_in(page, admin.email)
    for path in ("/admin", "/admin/kelompok", f"/admin/kelompok/{reference}"):
        page.goto(path)
        fits_the_screen(page)
    page.get_by_label("Tolak semua: blokir tetap berlaku").check()
    page.get_by_role("button", name="Lanjut ke konfirmasi").click()
    expect(page.get_by_role("heading", name="Anda akan menolak 3 tiket.")).to_be_visible()
    fits_the_screen(page)


@LANGUAGES
def test_the_group_pages_are_accessible(page, app, live_server, make_user, make_block, language):
    in_language(page, live_server, language)
    admin = make_user(role="admin")
    reference = wave(app, make_block, 3)
    appeal(app, "100.64.0.1")
    page.goto("/masuk")
    sign_in_by_ids(page, admin.email)
    expect(page).to_have_url(re.compile(r"/akun$"))
    report = []
    for path in ("/admin", "/admin/kelompok", f"/admin/kelompok/{reference}", "/admin/kelompok/tanpa-blokir"):
        check(page, path, report)
    page.goto(f"/admin/kelompok/{reference}")
    page.locator("#lift_block").check()
    page.locator("#keputusan-tolak").check()
    page.locator("#lanjut-konfirmasi").click()  # refused: only an approval lifts the block
    report.extend(f"group form with errors {line}" for line in violations(page))
    page.locator("#keputusan-setujui").check()
    page.locator("#lanjut-konfirmasi").click()
    expect(page.locator("#konfirmasi")).to_be_visible()
    report.extend(f"confirmation {line}" for line in violations(page))
    assert report == []
