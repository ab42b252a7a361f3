"""The page a visitor wanted, from the proxy to the block page, the appeal form and the ticket.

Proxies name it (nginx: X-Original-URL; Traefik and Caddy: X-Forwarded-Host and
X-Forwarded-Uri). Only a same-host path is ever offered as a link, so no header
and no crafted appeal link can send anyone to another site.
"""
import json
from html import escape

import pytest
from sqlalchemy import select

from guardsvc import create_app
from guardsvc.appeals import service as appeals
from guardsvc.appeals.models import UnblockTicket
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.web.original_request import original_page, safe_path
from tests.support.blocks_helpers import BLOCKED_IP
from tests.appeals.test_appeal_pages import FORM, submit

# What the proxy sends as X-Guardsvc-Secret to the apps these tests build (at least 32 characters).
PROXIED_SECRET = "rahasia-proksi-yang-panjang-0123456789"

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("headers,expected", [
    ({"X-Original-URL": "https://toko.example/keranjang?item=7"}, ("toko.example", "/keranjang?item=7")),
    ({"X-Original-URL": "/keranjang", "X-Forwarded-Host": "Toko.Example:8443"}, ("toko.example:8443", "/keranjang")),
    ({"X-Forwarded-Host": "toko.example", "X-Forwarded-Uri": "/produk/1"}, ("toko.example", "/produk/1")),
    ({"X-Original-URL": "javascript:alert(1)"}, (None, None)),
    ({"X-Original-URL": "https://toko.example//jahat.example/x"}, ("toko.example", None)),
    ({"X-Forwarded-Host": "toko.example", "X-Forwarded-Uri": "/\\jahat.example"}, ("toko.example", None)),
    ({"X-Forwarded-Host": "bad host", "X-Forwarded-Uri": "/a b"}, (None, None)),
    ({}, (None, None)),
])
def test_the_original_page_is_read_from_any_proxy_and_only_a_same_host_path_is_kept(app, headers, expected):
    with app.test_request_context("/", headers=headers):
        assert original_page() == expected


@pytest.mark.parametrize("value", ["//jahat.example", "https://jahat.example", "/ok\n", "x/y", "/" + "a" * 1000])
def test_no_path_that_could_leave_the_site_is_safe(value):
    assert safe_path(value) is None


def test_a_blocked_browser_behind_traefik_or_caddy_carries_its_page_to_the_appeal_form(app, make_block):
    proxied = create_app({"TESTING": True, "PROXY_COUNT": 1, "FORWARD_AUTH_SECRET": PROXIED_SECRET})
    reference = make_block(network=BLOCKED_IP)
    page = proxied.test_client().get("/api/guard/forward-auth", environ_base={"REMOTE_ADDR": "127.0.0.1"}, headers={
        "X-Forwarded-For": BLOCKED_IP, "X-Guardsvc-Secret": PROXIED_SECRET, "Accept": BROWSER,
        "X-Forwarded-Method": "GET", "X-Forwarded-Host": "toko.example", "X-Forwarded-Uri": "/keranjang?item=7"})
    assert page.status_code == 403
    assert f'href="/banding?ref={reference}&amp;kembali=/keranjang?item%3D7"' in page.get_data(as_text=True)


def test_an_approved_appellant_is_offered_the_way_back_and_the_audit_names_the_site(client, app):
    form = client.get("/banding?kembali=/keranjang%3Fitem%3D7").get_data(as_text=True)
    assert 'name="kembali" value="/keranjang?item=7"' in form
    assert submit(client, kembali="/keranjang?item=7").status_code == 303
    with app.app_context():
        ticket = db.session.scalars(select(UnblockTicket)).one()
        assert (ticket.return_path, ticket.site) == ("/keranjang?item=7", "localhost")
        number = ticket.ticket_number
    pending = client.get(f"/banding/cek?tiket={number}").get_data(as_text=True)
    assert "kembali-ke-halaman" not in pending  # not before the approval
    with app.app_context():
        appeals.decide_ticket(number, "approve")
        db.session.commit()
        event = db.session.scalars(select(AuditEvent).where(AuditEvent.action == "ticket.approved")).one()
        assert json.loads(event.details)["site"] == "localhost"
    approved = client.get(f"/banding/cek?tiket={number}").get_data(as_text=True)
    assert f'id="kembali-ke-halaman" href="{escape("/keranjang?item=7")}"' in approved


def test_a_crafted_way_back_to_another_site_is_dropped(client, app):
    assert 'name="kembali"' not in client.get("/banding?kembali=//jahat.example").get_data(as_text=True)
    assert submit(client, kembali="https://jahat.example/").status_code == 303
    with app.app_context():
        assert db.session.scalars(select(UnblockTicket.return_path)).one() is None
