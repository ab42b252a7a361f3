"""Administrator pages: access, queue, decisions, blocks, audit log."""
import re

import pytest

from tests.support.blocks_helpers import from_ip
from tests.support.factories import submit_body, submit_ticket
from tests.support.pages_support import post_form, sign_in_session, text_of

PAGES = ["/admin", "/admin/blokir", "/admin/audit", "/admin/masuk", "/admin/tiket/TKT-00000000"]
POSTS = ["/admin/tiket/TKT-00000000/putuskan", "/admin/blokir", "/admin/blokir/BLK-00000000/buka"]


@pytest.fixture()
def admin_client(client, make_user):
    sign_in_session(client, make_user(role="admin", email="admin@example.com"))
    return client


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_is_sent_to_sign_in(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/masuk?next=")


@pytest.mark.parametrize("path", PAGES)
def test_plain_user_gets_403_page(client, make_user, path):
    sign_in_session(client, make_user(role="user"))
    response = client.get(path)
    assert response.status_code == 403 and response.mimetype == "text/html"
    assert "Akses ditolak" in text_of(response)


@pytest.mark.parametrize("path", POSTS)
def test_posts_need_admin_and_csrf(client, make_user, path):
    sign_in_session(client, make_user(role="user"))
    assert post_form(client, path).status_code == 403
    sign_in_session(client, make_user(role="admin"))
    assert client.post(path, data={"action": "reject"}).status_code == 400


def test_queue_lists_counts_filters_and_charts(admin_client, make_ticket):
    numbers = [make_ticket(f"198.51.100.{i}", name=f"Pemohon {i}").ticket_number for i in range(1, 4)]
    html = text_of(admin_client.get("/admin"))
    assert all(number in html for number in numbers)
    assert re.search(r"<strong>3</strong> Menunggu", html)
    assert "<svg" in html and html.count('class="bar bar-pending"') == 1
    filtered = text_of(admin_client.get("/admin?q=Pemohon 2"))
    assert numbers[1] in filtered and numbers[0] not in filtered
    assert "Tidak ada tiket" in text_of(admin_client.get("/admin?status=approved"))
    paged = text_of(admin_client.get("/admin?per_page=2&page=2"))
    # Pending tickets by default, oldest first: the newest is on the second page.
    assert "Halaman 2 dari 2" in paged and numbers[2] in paged and numbers[0] not in paged


def test_ticket_page_shows_context_and_escapes_user_text(admin_client, make_block, make_ticket):
    reference = make_block(network="198.51.100.0/24", reason="Spam")
    number = make_ticket("198.51.100.5", device="dev-1", name="<b>Budi</b>",
                         reason="Baris satu\n<script>alert(1)</script>").ticket_number
    html = text_of(admin_client.get(f"/admin/tiket/{number.lower()}"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html
    assert "&lt;b&gt;Budi&lt;/b&gt;" in html
    assert reference in html and "dev-1" in html and "198.51.100.5" in html
    assert "Catatan ini akan dibaca oleh pemohon" in html
    assert 'value="approve"' in html and 'value="reject"' in html


def test_approve_from_page_lifts_a_checked_range_and_records_audit(admin_client, make_block, make_ticket, app):
    reference = make_block(network="198.51.100.0/24")
    number = make_ticket("198.51.100.5").ticket_number
    url = f"/admin/tiket/{number}/putuskan"
    assert f'name="lift_range" value="{reference}"' in text_of(admin_client.get(f"/admin/tiket/{number}"))
    response = post_form(admin_client, url, {"action": "approve", "admin_notes": "Maaf, salah blokir.",
                                             "lift_range": reference}, page=f"/admin/tiket/{number}")
    assert response.status_code == 303 and response.headers["Location"] == f"/admin/tiket/{number}"
    html = text_of(admin_client.get(f"/admin/tiket/{number}"))
    assert "disetujui" in html and "Maaf, salah blokir." in html and "admin@example.com" in html
    assert 'value="approve"' not in html
    status = admin_client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]
    assert status["status"] == "approved" and status["admin_notes"] == "Maaf, salah blokir."
    with app.app_context():
        from guardsvc.blocks.service import get_block

        assert get_block(reference).lifted_at is not None
    assert "Tiket disetujui" in text_of(admin_client.get("/admin/audit"))
    again = post_form(admin_client, url, {"action": "reject"}, page=f"/admin/tiket/{number}")
    assert again.status_code == 303
    assert "sudah diputuskan" in text_of(admin_client.get(f"/admin/tiket/{number}"))


def test_decision_form_errors_keep_the_text(admin_client, make_ticket):
    number = make_ticket("198.51.100.5").ticket_number
    long_notes = "x" * 1001
    response = post_form(admin_client, f"/admin/tiket/{number}/putuskan", {"action": "approve", "admin_notes": long_notes},
                         page="/admin")
    assert response.status_code == 422
    assert long_notes in text_of(response) and "Maksimal 1000 karakter." in text_of(response)
    bad_action = post_form(admin_client, f"/admin/tiket/{number}/putuskan", {"action": "maybe"}, page="/admin")
    assert bad_action.status_code == 422


def test_add_and_lift_blocks_from_page(admin_client, app):
    response = post_form(admin_client, "/admin/blokir", {"ip": "203.0.113.0/24", "reason": "Bot", "minutes": "60"},
                         page="/admin/blokir")
    assert response.status_code == 303
    html = text_of(admin_client.get("/admin/blokir"))
    reference = re.search(r"BLK-[0-9A-F]{8}", html).group(0)
    assert "203.0.113.0/24" in html and "Aktif" in html and "Buka blokir" in html
    assert app.test_client().get("/api/auth/tokens", **from_ip("203.0.113.9")).status_code == 403
    lifted = post_form(admin_client, f"/admin/blokir/{reference}/buka", {"reason": "Sudah aman"}, page="/admin/blokir")
    assert lifted.status_code == 303
    html = text_of(admin_client.get("/admin/blokir"))
    assert "Dibuka" in html and "Sudah aman" in html
    assert reference not in text_of(admin_client.get("/admin/blokir?active=true"))
    again = post_form(admin_client, f"/admin/blokir/{reference}/buka", {}, page="/admin/blokir")
    assert again.status_code == 303
    assert "sudah tidak aktif" in text_of(admin_client.get("/admin/blokir"))


def test_add_block_form_errors(admin_client):
    response = post_form(admin_client, "/admin/blokir", {"ip": "bukan-ip", "minutes": "abc"}, page="/admin/blokir")
    assert response.status_code == 422
    html = text_of(response)
    assert "bukan-ip" in html and "Harus berupa alamat IP atau rentang CIDR yang valid." in html
    assert "Harus berupa bilangan bulat." in html
    assert 'name="csrf_token"' in html


def test_sign_in_history_shows_every_account_and_filters_by_result(admin_client, make_user):
    from tests.support.factories import PASSWORD

    other = make_user(email="korban@example.com")
    visitor = admin_client.application.test_client()
    agent = {"User-Agent": "<script>alert(1)</script> Firefox/128.0 (X11; Linux x86_64)"}
    visitor.post("/api/auth/tokens", json={"email": other.email, "password": "salah-sekali"}, headers=agent)
    visitor.post("/api/auth/tokens", json={"email": other.email, "password": PASSWORD}, headers=agent)
    page = admin_client.get("/admin/masuk")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "korban@example.com" in html and "Kata sandi salah" in html and "Berhasil masuk" in html
    assert "<script>alert(1)</script>" not in html
    failed_only = admin_client.get("/admin/masuk?result=wrong_password").get_data(as_text=True)
    rows = re.search(r"<tbody>(.*)</tbody>", failed_only, re.S).group(1)
    assert "Kata sandi salah" in rows and "Berhasil masuk" not in rows
    assert admin_client.get("/admin/masuk?result=bogus").status_code == 422


CHROME_WINDOWS = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/131.0.0.0 Safari/537.36")


def test_ticket_and_audit_pages_speak_plainly(admin_client, app):
    response = admin_client.post("/api/guard/unblock-tickets/submit", json=submit_body(),
                                 headers={"User-Agent": CHROME_WINDOWS}, **from_ip("198.51.100.9"))
    number = response.get_json()["ticket_number"]
    post_form(admin_client, f"/admin/tiket/{number}/putuskan", {"action": "approve"},
              page=f"/admin/tiket/{number}")
    ticket_page = text_of(admin_client.get(f"/admin/tiket/{number}"))
    assert "Chrome di Windows" in ticket_page
    assert re.search(r"<details class=\"ua\"><summary>User-Agent lengkap</summary>"
                     r"<span class=\"code\">Mozilla/5.0 \(Windows", ticket_page)
    assert "ticket.approved" not in ticket_page and "Tiket disetujui oleh" in ticket_page
    audit_page = text_of(admin_client.get("/admin/audit"))
    assert "<dl class=\"kv-list\">" in audit_page
    assert "{&#34;" not in audit_page and "{&quot;" not in audit_page and '{"' not in audit_page


def test_empty_duration_makes_a_permanent_block(admin_client, app):
    response = post_form(admin_client, "/admin/blokir", {"ip": "192.0.2.0/24", "minutes": "  "},
                         page="/admin/blokir")
    assert response.status_code == 303
    [block] = admin_client.get("/api/admin/blocks").get_json()["data"]
    assert block["expires_at"] is None
    assert "Sampai dibuka" in text_of(admin_client.get("/admin/blokir"))


def test_admin_desk_is_wide_with_one_admin_link_and_labelled_tables(client, make_user):
    sign_in_session(client, make_user(role="admin", email="admin@example.com", name="Admin"))
    submit_ticket(client, "198.51.100.20")
    html = text_of(client.get("/admin"))
    assert '<body class="page-wide">' in html
    assert html.count(">Admin</a>") == 0 and html.count(">Administrasi</a>") == 1
    assert '<div class="table-wrap" role="region" aria-label="Daftar tiket" tabindex="0">' in html
    assert '<td data-label="Diajukan" class="when">' in html
    assert '<body class="">' in text_of(client.get("/banding"))


def test_chart_has_a_data_table_alternative(admin_client):
    submit_ticket(admin_client, "198.51.100.30")
    html = text_of(admin_client.get("/admin"))
    table = re.search(r'<details class="chart-data">.*?</details>', html, re.S).group(0)
    assert "<summary>Angka per hari (tabel)</summary>" in table
    rows = re.findall(r"<tr><th scope=\"row\" data-label=\"Tanggal\">([^<]+)</th>(.*?)</tr>", table, re.S)
    assert len(rows) == 14
    totals = [re.findall(r'data-label="Jumlah">(\d+)<', cells)[0] for _, cells in rows]
    assert totals.count("1") == 1 and totals.count("0") == 13


def test_the_desk_shows_a_device_cookie_as_a_fingerprint_and_blocks_it_by_the_ticket(app, client, make_user):
    from guardsvc.blocks.service import find_active_block
    from guardsvc.web.identity import fingerprint
    from tests.support.factories import submit_body
    from tests.support.pages_support import post_form, sign_in_session, text_of

    browser = app.test_client()
    browser.set_cookie(app.config["DEVICE_COOKIE_NAME"], "cookie-rahasia-peramban-77")
    number = browser.post("/api/guard/unblock-tickets/submit", json=submit_body()).get_json()["ticket_number"]
    sign_in_session(client, make_user(role="admin"))
    page = text_of(client.get(f"/admin/tiket/{number}"))
    assert "cookie-rahasia-peramban-77" not in page and fingerprint("cookie-rahasia-peramban-77") in page
    answer = post_form(client, f"/admin/tiket/{number}/blokir-perangkat", page=f"/admin/tiket/{number}")
    assert answer.status_code == 303
    with app.app_context():
        block = find_active_block(device_id="cookie-rahasia-peramban-77")
        assert block is not None and block.target == fingerprint("cookie-rahasia-peramban-77")
    assert "cookie-rahasia-peramban-77" not in text_of(client.get("/admin/blokir"))
