"""The appellant answers on their private page; the administrator sees it and replies from a template."""
import re

import pytest
import requests
from playwright.sync_api import expect

from guardsvc.outbox.service import messages_to
from tests.browser.conftest import fill_sign_in, shoot
from tests.support.factories import submit_body

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


def _private_path(app, email):
    with app.app_context():
        body = messages_to(email, "appeal_received")[-1].body_text
    return re.search(r"/banding/tiket/[A-Za-z0-9_-]+", body).group(0)


def test_appellant_answers_and_admin_replies_from_a_template(new_page, live_server, make_user, app):
    admin = make_user(name="Rina Admin", role="admin")
    number = requests.post(live_server.url + "/api/guard/unblock-tickets/submit", timeout=10,
                           json=submit_body(email="tamu@example.com")).json()["ticket_number"]
    appellant = new_page()
    appellant.goto(_private_path(app, "tamu@example.com"))
    expect(appellant.get_by_role("heading", name=f"Tiket {number}")).to_be_visible()
    appellant.get_by_label("Jawaban Anda").fill("Saya memakai jaringan kantor.")
    appellant.get_by_role("button", name="Kirim jawaban").click()
    expect(appellant.get_by_role("status").first).to_contain_text("Jawaban Anda terkirim.")
    expect(appellant.locator(".thread-appellant")).to_contain_text("Saya memakai jaringan kantor.")
    shoot(appellant, "banding-percakapan")

    desk = new_page()
    desk.goto("/masuk?next=/admin/templat")
    fill_sign_in(desk, admin.email)
    desk.get_by_label("Judul").fill("Minta bukti")
    desk.get_by_label("Teks").fill("Mohon kirim tangkapan layar pesan blokirnya.")
    desk.get_by_role("button", name="Simpan templat").click()
    expect(desk.locator("#daftar-templat")).to_contain_text("Minta bukti")

    desk.goto("/admin")
    row = desk.locator("tr", has_text=number)
    expect(row).to_contain_text("dijawab")
    shoot(desk, "admin-antrean-dijawab")
    row.get_by_role("link", name=number).click()
    expect(desk.locator("#email-terverifikasi")).to_be_visible()
    desk.get_by_label("Mulai dari templat").select_option(label="Minta bukti")
    expect(desk.locator("#teks-pesan")).to_have_value("Mohon kirim tangkapan layar pesan blokirnya.")
    desk.locator("#teks-pesan").fill("Mohon kirim tangkapan layar pesan blokirnya, dengan jamnya.")
    desk.get_by_role("button", name="Kirim pesan ke pemohon").click()
    expect(desk.get_by_role("status").first).to_contain_text("Pesan terkirim")
    expect(desk.locator(".thread-admin")).to_contain_text("dengan jamnya")
    shoot(desk, "admin-tiket-percakapan")

    appellant.reload()
    expect(appellant.locator(".thread-admin")).to_contain_text("dengan jamnya")
