"""Signing in, trusting this device, revoking it, and tokens, in a real browser."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fill_sign_in, shoot
from tests.support.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


def sign_in(page, email, password=PASSWORD):
    page.goto("/akun")
    expect(page).to_have_url(re.compile(r"/masuk\?next=/akun$"))
    fill_sign_in(page, email, password)


def test_sign_in_trust_this_device_revoke_and_sign_out(page, make_user):
    user = make_user(name="Sari Dewi", role="admin")
    page.goto("/masuk")
    shoot(page, "masuk")
    sign_in(page, user.email, "salah")
    expect(page.get_by_role("alert")).to_have_text("E-mail atau kata sandi salah.")
    expect(page.get_by_label("Alamat e-mail")).to_have_value(user.email)
    expect(page.get_by_label("Kata sandi")).to_have_value("")
    shoot(page, "masuk-gagal")

    sign_in(page, user.email)
    expect(page).to_have_url(re.compile(r"/akun$"))
    expect(page.get_by_role("navigation")).to_contain_text("Sari Dewi")
    expect(page.get_by_role("link", name="Administrasi")).to_be_visible()
    expect(page.locator("#daftar-perangkat")).to_have_text("Belum ada perangkat tepercaya.")

    page.get_by_label("Nama perangkat").fill("Laptop kantor")
    page.get_by_role("button", name="Percayai perangkat ini").click()
    expect(page.get_by_role("status").first).to_contain_text("di perangkat ini kini tepercaya")
    card = page.locator("#daftar-perangkat li").filter(has_text="Laptop kantor")
    expect(card).to_contain_text("Perangkat ini")
    expect(card).to_contain_text("127.0.0.1")
    expect(card).to_contain_text("Chrome")
    expect(card).to_contain_text("Aktif")

    card.get_by_text("Ganti nama").click()
    card.get_by_label("Nama baru").fill("Laptop rumah")
    card.get_by_role("button", name="Simpan nama").click()
    card = page.locator("#daftar-perangkat li").filter(has_text="Laptop rumah")
    expect(card).to_be_visible()

    page.get_by_label("Nama token").fill("Skrip laporan")
    page.get_by_role("button", name="Buat token").click()
    expect(page.locator("#token-baru")).to_have_text(re.compile(r"^gsv_"))
    expect(page.get_by_role("button", name="Salin token")).to_be_visible()
    shoot(page, "akun")

    card.get_by_role("button", name=re.compile("^Cabut")).click()
    card = page.locator("#daftar-perangkat li").filter(has_text="Laptop rumah")
    expect(card).to_contain_text("Dicabut")
    expect(card.get_by_role("button", name=re.compile("^Cabut"))).to_have_count(0)
    expect(page.locator("#token-baru")).to_have_count(0)

    page.get_by_role("button", name="Keluar", exact=True).click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("status").first).to_have_text("Anda sudah keluar.")
    expect(page.get_by_role("navigation").get_by_role("link", name="Masuk")).to_be_visible()


def test_account_works_without_javascript(new_page, make_user):
    page = new_page(java_script_enabled=False)
    user = make_user()
    sign_in(page, user.email)
    page.get_by_role("button", name="Percayai perangkat ini").click()
    expect(page.locator("#daftar-perangkat li")).to_contain_text("Perangkat ini")
