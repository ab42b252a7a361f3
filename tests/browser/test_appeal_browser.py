"""The appeal journey in a real browser: submit, read the ticket, check it, cooldown."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shoot

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]
TICKET = re.compile(r"^TKT-[0-9A-F]{8}$")
REASON = "Saya memakai wifi kampus dan tiba-tiba diblokir. Referensi BLK-00AB12CD."


def fill_appeal(page, name="Budi Santoso", email="budi@example.com", reason=REASON):
    page.get_by_label("Nama lengkap").fill(name)
    page.get_by_label("Alamat e-mail").fill(email)
    page.get_by_label("Nomor telepon").fill("0812-3456-7890")
    page.get_by_label("Alasan permohonan").fill(reason)


def test_submit_appeal_read_ticket_check_status_then_cooldown(page):
    page.goto("/")
    shoot(page, "beranda")
    page.get_by_role("link", name="Ajukan banding pembukaan blokir").click()
    expect(page).to_have_url(re.compile(r"/banding$"))
    shoot(page, "banding")
    fill_appeal(page)
    expect(page.locator("#reason-count")).to_have_text(f"Sisa {1000 - len(REASON)} karakter")
    page.get_by_role("button", name="Kirim permohonan").click()
    expect(page).to_have_url(re.compile(r"/banding/terkirim$"))
    ticket = page.locator("#nomor-tiket").inner_text().strip()
    assert TICKET.match(ticket)
    expect(page.get_by_role("button", name="Salin nomor tiket")).to_be_visible()
    shoot(page, "banding-terkirim")

    page.get_by_role("link", name="Lihat status tiket").click()
    expect(page.locator(".status-badge")).to_have_text("Status: Menunggu peninjauan")
    expect(page.get_by_role("heading", name=f"Tiket {ticket}")).to_be_visible()
    expect(page.locator("body")).to_contain_text("WIB")
    shoot(page, "cek-menunggu")

    page.goto("/banding")
    fill_appeal(page, name="Budi lagi")
    page.get_by_role("button", name="Kirim permohonan").click()
    expect(page.get_by_role("heading", name="Permohonan Anda masih diproses")).to_be_visible()
    expect(page.locator("#nomor-tiket")).to_have_text(ticket)
    shoot(page, "banding-cooldown")
    page.get_by_role("link", name="Lihat status tiket").click()
    expect(page.get_by_role("heading", name=f"Tiket {ticket}")).to_be_visible()


def test_status_check_by_typing_a_number_in_any_case(page):
    page.goto("/banding")
    fill_appeal(page)
    page.get_by_role("button", name="Kirim permohonan").click()
    ticket = page.locator("#nomor-tiket").inner_text().strip()
    page.goto("/banding/cek")
    shoot(page, "cek")
    page.get_by_label("Nomor tiket").fill(f"  {ticket.lower()} ")
    page.get_by_role("button", name="Cek status").click()
    expect(page.locator(".status-badge")).to_have_text("Status: Menunggu peninjauan")
    page.get_by_label("Nomor tiket").fill("TKT-00000000")
    page.get_by_role("button", name="Cek status").click()
    expect(page.get_by_role("alert")).to_contain_text("Nomor tiket tidak ditemukan.")
    shoot(page, "cek-tidak-ditemukan")


def test_invalid_appeal_keeps_text_and_focuses_error_summary(page):
    page.goto("/banding?ref=BLK-00AB12CD")
    expect(page.get_by_label("Alasan permohonan")).to_have_value(re.compile(r"^Nomor referensi blokir: BLK-00AB12CD"))
    shoot(page, "banding-ref")
    page.get_by_label("Nama lengkap").fill("Budi")
    page.get_by_label("Alamat e-mail").fill("bukan-email")
    page.get_by_label("Alasan permohonan").fill("x" * 1001)
    expect(page.locator("#reason-count")).to_have_text("Kelebihan 1 karakter")
    page.get_by_role("button", name="Kirim permohonan").click()
    summary = page.locator("#ringkasan-kesalahan")
    expect(summary).to_be_focused()
    expect(summary).to_contain_text("Format alamat e-mail tidak valid.")
    expect(page.get_by_label("Alamat e-mail")).to_have_value("bukan-email")
    expect(page.get_by_label("Alasan permohonan")).to_have_value("x" * 1001)
    expect(page.get_by_label("Alamat e-mail")).to_have_attribute("aria-invalid", "true")
    shoot(page, "banding-kesalahan")
    summary.get_by_role("link", name=re.compile("Alamat e-mail")).click()
    expect(page.get_by_label("Alamat e-mail")).to_be_focused()


def test_keyboard_only_appeal(page):
    page.goto("/banding")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Lewati ke konten utama")).to_be_focused()
    for _ in range(20):
        if page.evaluate("document.activeElement.id") == "name":
            break
        page.keyboard.press("Tab")
    expect(page.get_by_label("Nama lengkap")).to_be_focused()
    page.keyboard.type("Sari Keyboard")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Alamat e-mail")).to_be_focused()
    page.keyboard.type("sari@example.com")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Nomor telepon")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Alasan permohonan")).to_be_focused()
    page.keyboard.type("Diblokir tanpa alasan yang jelas.")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Kirim permohonan")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/banding/terkirim$"))
    assert TICKET.match(page.locator("#nomor-tiket").inner_text().strip())


def test_appeal_works_without_javascript(new_page):
    page = new_page(java_script_enabled=False)
    page.goto("/banding")
    fill_appeal(page)
    expect(page.locator("#reason-count")).to_have_count(0)
    page.get_by_role("button", name="Kirim permohonan").click()
    expect(page).to_have_url(re.compile(r"/banding/terkirim$"))
    ticket = page.locator("#nomor-tiket").inner_text().strip()
    assert TICKET.match(ticket)
    expect(page.locator(".copy-button")).to_be_hidden()
    shoot(page, "tanpa-js-terkirim")
    page.get_by_role("link", name="Lihat status tiket").click()
    expect(page.locator(".status-badge")).to_have_text("Status: Menunggu peninjauan")
