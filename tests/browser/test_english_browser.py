"""The appeal journey in English on a phone-sized screen: form, receipt, status."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shoot

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]
TICKET = re.compile(r"^TKT-[0-9A-F]{8}$")
PHONE = {"width": 375, "height": 800}
REASON = "I was on the campus wifi and got blocked. Reference BLK-00AB12CD."
# Words of the public templates that must not be left on an English page.
INDONESIAN = ("Ajukan banding", "Cek status", "Nama lengkap", "Alamat e-mail", "Alasan permohonan", "Kirim",
              "Salin", "Sisa", "Kelebihan", "karakter", "Nomor tiket", "Permohonan Anda terkirim", "Lihat status",
              "Diajukan", "Diputuskan", "Belum", "Catatan administrator", "(opsional)", "Maks.")


def english_phone(new_page, live_server):
    page = new_page(viewport=PHONE, locale="en-US", permissions=["clipboard-read", "clipboard-write"])
    page.context.add_cookies([{"name": "guardsvc_lang", "value": "en", "url": live_server.browser_url}])
    return page


def fits_the_screen(page):
    """Nothing wider than the viewport, and no button or link-button cut off."""
    problems = page.evaluate("""() => {
        const found = [];
        if (document.documentElement.scrollWidth > window.innerWidth) {
            found.push('page ' + document.documentElement.scrollWidth + 'px wide');
        }
        for (const el of document.querySelectorAll('button, .button, input, textarea, output, h1, h2')) {
            if (el.offsetParent === null) continue;
            const box = el.getBoundingClientRect();
            if (box.right > window.innerWidth + 0.5 || el.scrollWidth > el.clientWidth + 1) {
                found.push(el.tagName + ' ' + (el.id || el.textContent.trim().slice(0, 30)));
            }
        }
        return found;
    }""")
    assert problems == [], problems


def no_indonesian_of_ours(page):
    text = page.locator("body").inner_text()
    left = [word for word in INDONESIAN if word in text]
    assert left == [], left


def test_appeal_in_english_on_a_phone(new_page):
    # An Indonesian browser; the switch in the header turns the pages to English.
    page = new_page(viewport=PHONE, locale="id-ID", permissions=["clipboard-read", "clipboard-write"])
    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Akses aman, dan jalan kembali yang adil")
    page.get_by_role("button", name="English").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Safe access, and a fair way back")
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    page.screenshot(path=str(shot("en-home")), full_page=True)

    page.locator("main").get_by_role("link", name="Appeal a block").click()
    expect(page).to_have_url(re.compile(r"/banding$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Appeal a block")
    page.get_by_label("Full name").fill("Budi Santoso")
    page.get_by_label("Email address").fill("budi@example.com")
    page.get_by_label("Phone number").fill("0812-3456-7890")
    reason = page.get_by_label("Reason for your appeal")
    reason.fill("x" * 999)
    expect(page.locator("#reason-count")).to_have_text("1 character left")
    reason.fill("x" * 1001)
    expect(page.locator("#reason-count")).to_have_text("1 character too many")
    reason.fill(REASON)
    expect(page.locator("#reason-count")).to_have_text(f"{1000 - len(REASON)} characters left")
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    page.screenshot(path=str(shot("en-appeal-form")), full_page=True)

    page.get_by_role("button", name="Submit appeal").click()
    expect(page).to_have_url(re.compile(r"/banding/terkirim$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Your appeal has been sent")
    ticket = page.locator("#nomor-tiket").inner_text().strip()
    assert TICKET.match(ticket)
    page.get_by_role("button", name="Copy ticket number").click()
    expect(page.locator(".copy-status")).to_have_text("Copied.")
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    page.screenshot(path=str(shot("en-appeal-sent")), full_page=True)

    page.get_by_role("link", name="View ticket status").click()
    expect(page.get_by_role("heading", name=f"Ticket {ticket}")).to_be_visible()
    expect(page.locator(".status-badge")).to_contain_text("Status:")
    expect(page.locator(".details")).to_contain_text("Not decided yet")
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    page.screenshot(path=str(shot("en-status-pending")), full_page=True)

    page.goto("/banding/cek")
    page.get_by_label("Ticket number").fill(ticket.lower())
    page.get_by_role("button", name="Check status").click()
    expect(page.get_by_role("heading", name=f"Ticket {ticket}")).to_be_visible()
    page.get_by_label("Ticket number").fill("TKT-00000000")
    page.get_by_role("button", name="Check status").click()
    expect(page.get_by_role("alert")).to_contain_text("Ticket number not found.")
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    page.screenshot(path=str(shot("en-status-not-found")), full_page=True)


def test_block_page_in_english_on_a_phone(new_page, live_server, make_block):
    reference = make_block(network="127.0.0.1", reason="Test", minutes=60)
    page = english_phone(new_page, live_server)
    page.goto(f"/terblokir?ref={reference}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your access is blocked")
    expect(page.get_by_role("button", name="Copy block reference")).to_be_visible()
    fits_the_screen(page)
    no_indonesian_of_ours(page)
    page.screenshot(path=str(shot("en-blocked")), full_page=True)
    page.locator("main").get_by_role("link", name="Appeal a block").click()
    expect(page.get_by_label("Reason for your appeal")).to_have_value(re.compile(reference))


def shot(name):
    from tests.browser.conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}-375.png"
