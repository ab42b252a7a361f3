"""Two-step verification in a real browser: set it up, sign in with a code, trust the device."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fill_sign_in, shoot
from tests.support.factories import PASSWORD
from tests.support.signin_support import enable_2fa, totp_code

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


def password_step(page, email, password=PASSWORD):
    page.goto("/masuk")
    fill_sign_in(page, email, password)


def sign_out(page):
    page.get_by_role("button", name="Keluar", exact=True).click()


def test_set_up_2fa_sign_in_with_code_and_trust_the_device(page, make_user):
    user = make_user(name="Rina Wati")
    password_step(page, user.email)
    expect(page).to_have_url(re.compile(r"/akun$"))

    page.get_by_role("button", name="Siapkan verifikasi dua langkah").click()
    expect(page.locator("#penyiapan-2fa svg")).to_be_visible()
    secret = page.locator("#kunci-rahasia").inner_text()
    assert re.fullmatch(r"[A-Z2-7]{32}", secret)
    page.locator("#penyiapan-2fa").scroll_into_view_if_needed()
    shoot(page, "akun-2fa-penyiapan")
    page.get_by_label("Kode dari aplikasi").fill("12345")
    page.get_by_role("button", name="Aktifkan").click()
    expect(page.locator("#kode-aktivasi-error-1")).to_contain_text("Kode verifikasi salah")
    page.get_by_label("Kode dari aplikasi").fill(totp_code(secret))
    page.get_by_role("button", name="Aktifkan").click()
    expect(page.get_by_role("heading", name="Simpan kode pemulihan Anda")).to_be_visible()
    recovery = page.locator("#kode-pemulihan li").all_inner_texts()
    assert len(recovery) == 10
    shoot(page, "kode-pemulihan")
    page.get_by_role("link", name="Saya sudah menyimpannya").click()
    expect(page.locator("#sisa-kode-pemulihan")).to_have_text("10")

    sign_out(page)
    password_step(page, user.email)
    expect(page).to_have_url(re.compile(r"/masuk/kode$"))
    expect(page.get_by_label("Kode verifikasi")).to_be_focused()
    shoot(page, "masuk-kode")
    page.get_by_label("Kode verifikasi").fill("000000" if totp_code(secret, 1) != "000000" else "111111")
    page.get_by_role("button", name="Verifikasi").click()
    expect(page.locator("#gagal-kode")).to_have_text("Kode verifikasi salah atau sudah pernah dipakai.")
    shoot(page, "masuk-kode-salah")
    # The code of the next step: the one used to confirm may not be used again.
    page.get_by_label("Kode verifikasi").fill(totp_code(secret, 1))
    page.get_by_label(re.compile("^Percayai perangkat ini")).check()
    page.get_by_role("button", name="Verifikasi").click()
    expect(page).to_have_url(re.compile(r"/akun$"))
    expect(page.locator("#daftar-perangkat li")).to_have_count(1)

    sign_out(page)
    password_step(page, user.email)
    expect(page).to_have_url(re.compile(r"/akun$"))  # trusted: no code asked
    history = page.locator("table.history tbody tr")
    expect(history.first).to_contain_text("perangkat tepercaya, tanpa kode")
    page.locator("#keamanan").scroll_into_view_if_needed()
    shoot(page, "akun-keamanan")


def test_recovery_code_then_sign_out_everywhere(page, new_page, app, make_user):
    user = make_user()
    _, recovery = enable_2fa(app, user)
    other = new_page()
    for tab in (page, other):
        password_step(tab, user.email)
        tab.get_by_label("Kode verifikasi").fill(recovery.pop())
        tab.get_by_role("button", name="Verifikasi").click()
        expect(tab).to_have_url(re.compile(r"/akun$"))
    page.reload()
    expect(page.locator("#sisa-kode-pemulihan")).to_have_text("8")

    page.get_by_role("button", name="Keluar dari semua perangkat", exact=True).click()
    expect(page).to_have_url(re.compile(r"/masuk$"))
    expect(page.get_by_role("status")).to_contain_text("keluar dari semua perangkat")
    shoot(page, "keluar-semua")
    other.goto("/akun")
    expect(other).to_have_url(re.compile(r"/masuk\?next=/akun$"))


def test_change_password_page(page, make_user):
    user = make_user()
    password_step(page, user.email)
    page.get_by_role("link", name="Ganti kata sandi").click()
    expect(page).to_have_url(re.compile(r"/akun/kata-sandi$"))
    page.get_by_label("Kata sandi baru", exact=True).fill("pendek")
    page.get_by_label("Ulangi kata sandi baru").fill("pendek")
    page.get_by_role("button", name="Ganti kata sandi").click()
    expect(page.get_by_role("alert")).to_contain_text("Kata sandi minimal 10 karakter.")
    shoot(page, "ganti-kata-sandi-gagal")
    new = "kuda-baterai-staples-benar"
    page.get_by_label("Kata sandi baru", exact=True).fill(new)
    page.get_by_label("Ulangi kata sandi baru").fill(new)
    page.get_by_role("button", name="Ganti kata sandi").click()
    expect(page).to_have_url(re.compile(r"/akun#keamanan$"))
    expect(page.get_by_role("status").first).to_contain_text("Kata sandi berhasil diubah.")
