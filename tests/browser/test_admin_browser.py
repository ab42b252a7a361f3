"""An administrator signs in, reads a ticket and approves it in a real browser."""
import re

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import fill_sign_in, shoot
from tests.support.factories import submit_body

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


def test_admin_approves_a_ticket_and_the_device_block_is_lifted(page, live_server, make_user, make_block, app):
    admin = make_user(name="Rina Admin", role="admin")
    reference = make_block(device_id="dev-browser", reason="Terlalu banyak percobaan masuk")
    make_block(network="203.0.113.0/24", reason="Jaringan bot")
    submitted = requests.post(live_server.url + "/api/guard/unblock-tickets/submit", timeout=10,
                              headers={"X-Device-Id": "dev-browser"},
                              json=submit_body(reason=f"Saya tidak melakukan apa-apa. Referensi {reference}."))
    number = submitted.json()["ticket_number"]

    page.goto("/admin")
    expect(page).to_have_url(re.compile(r"/masuk\?next=/admin$"))
    fill_sign_in(page, admin.email)
    expect(page).to_have_url(re.compile(r"/admin$"))
    expect(page.get_by_role("heading", name="Antrean tiket")).to_be_visible()
    expect(page.locator(".chart")).to_be_visible()
    shoot(page, "admin-antrean")

    page.get_by_role("link", name=number).click()
    expect(page.locator(".appellant-text")).to_contain_text(reference)
    expect(page.get_by_text("Catatan ini akan dibaca oleh pemohon")).to_be_visible()
    page.get_by_label("Catatan").fill("Blokir dibuka, mohon maaf atas ketidaknyamanannya.")
    shoot(page, "admin-tiket")
    page.get_by_role("button", name="Setujui dan buka blokir").click()
    expect(page.get_by_role("status").first).to_contain_text(f"Tiket {number} disetujui")
    expect(page.get_by_role("button", name="Setujui dan buka blokir")).to_have_count(0)
    shoot(page, "admin-tiket-disetujui")

    status = requests.get(f"{live_server.url}/api/guard/unblock-tickets/check/{number}", timeout=10).json()["data"]
    assert status["status"] == "approved"
    assert status["admin_notes"] == "Blokir dibuka, mohon maaf atas ketidaknyamanannya."
    with app.app_context():
        from guardsvc.blocks.service import find_active_block

        assert find_active_block(None, "dev-browser") is None
        assert find_active_block("203.0.113.5") is not None

    page.get_by_role("link", name="Blokir", exact=True).click()
    expect(page.locator(f"#{reference}")).to_contain_text("Dibuka")
    shoot(page, "admin-blokir")
    page.get_by_role("link", name="Log audit").click()
    expect(page.locator("table")).to_contain_text("Tiket disetujui")
    shoot(page, "admin-audit")
