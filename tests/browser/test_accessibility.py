"""axe-core (WCAG 2.2 A and AA rules) finds nothing on any page, at a phone and a desktop width,
in Indonesian and in English (the ``guardsvc_lang`` cookie the language switch sets).

axe-core comes with the axe-playwright-python package and is injected into the
page from disk; nothing is fetched from the internet.
"""
import re

import pytest
import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from guardsvc.outbox.service import messages_to
from tests.browser.conftest import WIDTHS, shoot
from tests.support.factories import PASSWORD, submit_body
from tests.support.signin_support import enable_2fa

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
         "resultTypes": ["violations"]}
AXE = Axe()
# The appeal form's words in each language. The sign-in and account pages are reached by their
# fields' ids and their forms' addresses instead, whatever language they are written in.
WORDS = {
    "id": {"name": "Nama lengkap", "email": "Alamat e-mail", "reason": "Alasan permohonan", "submit": "Kirim permohonan"},
    "en": {"name": "Full name", "email": "Email address", "reason": "Reason for your appeal", "submit": "Submit appeal"},
}
LANGUAGES = pytest.mark.parametrize("language", ["id", "en"])


def in_language(page, live_server, language):
    """Read every page in ``language``, as the switch would have it."""
    page.context.add_cookies([{"name": "guardsvc_lang", "value": language, "url": live_server.browser_url}])
    return WORDS[language]


def sign_in_by_ids(page, email):
    """``fill_sign_in`` without the form's words: the sign-in form by its fields' ids."""
    page.locator("#email").fill(email)
    page.locator("#password").fill(PASSWORD)
    page.locator('form[action="/masuk"] button[type="submit"]').click()


def axe_violations(page):
    """axe's violations on the page as it is now. axe is injected once per document, not per run."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.axe_script)
    return page.evaluate("options => axe.run(document, options)", RULES)["violations"]


def violations(page):
    """Every WCAG violation on ``page`` at each width, as readable lines."""
    found = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        for violation in axe_violations(page):
            targets = [" ".join(node["target"]) for node in violation["nodes"]][:3]
            found.append(f"{width}px {violation['impact']} {violation['id']}: {targets}")
    page.set_viewport_size({"width": 1280, "height": 900})
    return found


def check(page, path, report):
    page.goto(path)
    report.extend(f"{path} {line}" for line in violations(page))


def mailed_path(app, email, kind, pattern):
    """The private path in the latest e-mail of ``kind`` to ``email``."""
    with app.app_context():
        body = messages_to(email, kind)[-1].body_text
    return re.search(pattern, body).group(0)


@LANGUAGES
def test_public_pages_are_accessible(page, app, live_server, make_block, make_user, language):
    words = in_language(page, live_server, language)
    reference = make_block(network="192.0.2.55", reason="Uji aksesibilitas", minutes=60)
    number = requests.post(live_server.url + "/api/guard/unblock-tickets/submit",
                           json=submit_body(email="axe@example.com"), headers={"X-Device-Id": "axe-device"},
                           timeout=10).json()["ticket_number"]
    ticket_page = mailed_path(app, "axe@example.com", "appeal_received", r"/banding/tiket/[A-Za-z0-9_-]+")
    report = []
    for path in ("/", "/banding", f"/banding?ref={reference}", "/banding/cek", f"/banding/cek?tiket={number}",
                 "/banding/cek?tiket=TKT-00000000", "/masuk", f"/terblokir?ref={reference}",
                 "/halaman-yang-tidak-ada", ticket_page, "/masuk/lupa", "/masuk/atur-ulang/tidak-ada"):
        check(page, path, report)
    user = make_user()
    page.goto("/masuk/lupa")
    page.locator("#email").fill(user.email)
    page.locator("#kirim-tautan").click()
    report.extend(f"/masuk/lupa sent {line}" for line in violations(page))
    check(page, mailed_path(app, user.email, "password_reset", r"/masuk/atur-ulang/[A-Za-z0-9_-]+"), report)
    enable_2fa(app, user)
    page.goto("/masuk")
    sign_in_by_ids(page, user.email)
    expect(page).to_have_url(re.compile(r"/masuk/kode"))
    report.extend(f"/masuk/kode {line}" for line in violations(page))
    page.goto("/banding")
    page.get_by_label(words["name"]).fill("Sari Wulandari")
    page.get_by_label(words["email"]).fill("sari@example.com")
    page.get_by_label(words["reason"]).fill("Saya diblokir saat memakai wifi kantor.")
    page.get_by_role("button", name=words["submit"]).click()
    expect(page).to_have_url(re.compile(r"/banding/terkirim$"))
    report.extend(f"/banding/terkirim {line}" for line in violations(page))
    assert report == []
    # The rules are live: an image without a text alternative is found at both widths.
    page.evaluate("document.querySelector('main').append(document.createElement('img'))")
    assert [line.split()[2] for line in violations(page)] == ["image-alt:"] * len(WIDTHS)


@LANGUAGES
def test_signed_in_and_admin_pages_are_accessible(page, live_server, make_user, make_block, make_ticket, language):
    in_language(page, live_server, language)
    admin = make_user(name="Rina Admin", role="admin")
    make_block(network="198.51.100.0/24", reason="Jaringan bot")
    number = make_ticket("198.51.100.20").ticket_number
    page.goto("/masuk")
    sign_in_by_ids(page, admin.email)
    expect(page).to_have_url(re.compile(r"/akun$"))
    report = []
    for path in ("/akun", "/akun/konfirmasi", "/akun/kata-sandi", "/admin", "/admin?status=pending",
                 f"/admin/tiket/{number}", "/admin/blokir", "/admin/izin", "/admin/lepas-sendiri", "/admin/masuk", "/admin/audit",
                 "/admin/templat", "/admin/node"):
        check(page, path, report)
    shoot(page, f"admin-node-{language}")  # the fleet page, as the last path left it
    page.goto("/akun")
    page.locator('form[action="/akun/dua-langkah/mulai"] button[type="submit"]').click()
    report.extend(f"2FA set-up {line}" for line in violations(page))
    assert report == []
