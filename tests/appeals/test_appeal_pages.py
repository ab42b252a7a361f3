"""Functional tests of /banding (appeal form), its receipt and /banding/cek (status)."""
import re
from datetime import datetime
from html import escape

import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from guardsvc.storage import clock
from guardsvc.appeals import service as appeals
from guardsvc.appeals.models import UnblockTicket
from guardsvc.extensions import db
from tests.support.pages_support import post_form, text_of

FORM = {"name": "Budi Santoso", "email": "budi@example.com", "phone": "0812-3456-7890",
        "reason": "Saya tidak melakukan apa-apa.\nMohon dibuka."}
TICKET = re.compile(r"TKT-[0-9A-F]{8}")


def submit(client, **overrides):
    return post_form(client, "/banding", {**FORM, **overrides}, page="/banding")


def stored_tickets(app):
    with app.app_context():
        return db.session.scalars(select(UnblockTicket)).all()


def test_form_page_has_labelled_fields_and_csrf(client):
    response = client.get("/banding")
    html = text_of(response)
    assert response.status_code == 200
    assert '<html lang="id">' in html
    assert '<meta name="csrf-token" content="' in html
    for field in ("name", "email", "phone", "reason"):
        assert f'<label for="{field}">' in html
        assert f'name="{field}"' in html
    assert 'name="csrf_token"' in html
    assert "Maks. 1000 karakter." in html


def test_block_reference_prefills_reason_in_canonical_form(client):
    html = text_of(client.get("/banding?ref=%20blk-00ab12cd%20"))
    assert "Nomor referensi blokir: BLK-00AB12CD" in html
    assert re.search(r"<textarea[^>]*>Nomor referensi blokir: BLK-00AB12CD", html)


@pytest.mark.parametrize("ref", ["<script>alert(1)</script>", "BLK-XYZ", "TKT-0000ABCD", ""])
def test_garbage_reference_is_ignored(client, ref):
    html = text_of(client.get("/banding", query_string={"ref": ref}))
    assert re.search(r'<textarea id="reason"[^>]*></textarea>', html)
    assert "<script>alert" not in html


def test_valid_submission_redirects_to_receipt_with_ticket_number(client, app):
    response = submit(client)
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.endswith("/banding/terkirim")
    assert "budi" not in location.lower()
    receipt = client.get(location)
    assert receipt.status_code == 200
    [ticket] = stored_tickets(app)
    html = text_of(receipt)
    assert f'<output id="nomor-tiket" class="copy-value">{ticket.ticket_number}</output>' in html
    assert f'href="/banding/cek?tiket={ticket.ticket_number}"' in html
    assert "Budi" not in html and "budi@example.com" not in html
    assert ticket.reason == FORM["reason"]
    assert ticket.phone == FORM["phone"]
    assert ticket.status == "pending"


def test_receipt_without_a_submission_goes_to_status_check(client):
    response = client.get("/banding/terkirim")
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/banding/cek")


def test_stale_form_is_shown_again_with_the_text_and_nothing_saved(client, app):
    response = client.post("/banding", data={**FORM, "reason": "Alasan <b>saya</b> panjang"})
    assert response.status_code == 400
    html = text_of(response)
    assert "Sesi formulir sudah kedaluwarsa" in html and "CSRF" not in html and "Kode 400" not in html
    assert "Alasan &lt;b&gt;saya&lt;/b&gt; panjang</textarea>" in html
    assert f'value="{FORM["email"]}"' in html
    assert '<html lang="id">' in html
    assert stored_tickets(app) == []
    # The page carries a fresh token: sending it again succeeds.
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    again = client.post("/banding", data={**FORM, "csrf_token": token})
    assert again.status_code == 303 and len(stored_tickets(app)) == 1


def test_invalid_input_rerenders_form_keeping_text_with_errors_at_fields(client, app):
    reason = "Alasan <b>panjang</b> & jujur\nbaris kedua"
    response = submit(client, name="N" * 101, email="bukan-email", reason=reason, phone="")
    assert response.status_code == 422
    html = text_of(response)
    assert escape(reason, quote=False) in html
    assert "<b>panjang</b>" not in html
    assert 'value="' + "N" * 101 + '"' in html
    assert 'value="bukan-email"' in html
    assert re.search(r'<input id="name"[^>]*aria-describedby="name-hint name-error-1"[^>]*aria-invalid="true"', html)
    assert re.search(r'<p class="field-error" id="email-error-1">.*Format alamat e-mail tidak valid\.</p>', html)
    assert "Maksimal 100 karakter." in html
    assert 'id="ringkasan-kesalahan"' in html
    assert 'href="#name"' in html and 'href="#email"' in html
    assert 'aria-invalid' not in re.search(r'<textarea id="reason"[^>]*>', html).group(0)
    assert stored_tickets(app) == []


def test_missing_required_fields_are_reported(client):
    response = submit(client, name="  ", email="", reason="")
    html = text_of(response)
    assert response.status_code == 422
    assert html.count("Wajib diisi.") >= 3


def test_second_submission_shows_existing_ticket_instead_of_error(client, app):
    submit(client)
    [first] = stored_tickets(app)
    response = submit(client, name="Orang Lain")
    assert response.status_code == 429
    html = text_of(response)
    assert "Permohonan Anda masih diproses" in html
    assert f'>{first.ticket_number}</output>' in html
    assert f'href="/banding/cek?tiket={first.ticket_number}"' in html
    assert len(stored_tickets(app)) == 1


def test_database_outage_keeps_typed_text(client, app, monkeypatch):
    def unreachable(*args, **kwargs):
        raise OperationalError("INSERT", {}, Exception("connection refused"))

    monkeypatch.setattr(appeals, "submit_ticket", unreachable)
    response = submit(client)
    assert response.status_code == 503
    html = text_of(response)
    assert "Permohonan Anda belum terkirim." in html
    assert 'value="Budi Santoso"' in html
    assert "Saya tidak melakukan apa-apa.\nMohon dibuka.</textarea>" in html
    assert "connection refused" not in html


def test_status_check_form_without_ticket(client):
    response = client.get("/banding/cek")
    assert response.status_code == 200
    assert '<form method="get" action="/banding/cek"' in text_of(response)
    assert 'name="tiket"' in text_of(response)


def test_status_of_pending_ticket_any_case_and_spaces(client, app, monkeypatch):
    monkeypatch.setattr(clock, "utcnow", lambda: datetime(2026, 11, 22, 8, 50, 0, 123456))
    submit(client)
    [ticket] = stored_tickets(app)
    response = client.get("/banding/cek", query_string={"tiket": f"  {ticket.ticket_number.lower()} "})
    html = text_of(response)
    assert response.status_code == 200
    assert f"Tiket <span class=\"code\">{ticket.ticket_number}</span>" in html
    assert "Status: <strong>Menunggu peninjauan</strong>" in html
    assert "22 November 2026, 15.50 WIB" in html
    assert "Belum diputuskan" in html
    for private in ("Budi", "budi@example.com", "0812", "Saya tidak melakukan"):
        assert private not in html


@pytest.mark.parametrize("action,label", [("approve", "Disetujui"), ("reject", "Ditolak")])
def test_status_of_decided_ticket_shows_decision_time_and_notes(client, app, monkeypatch, action, label):
    submit(client)
    [ticket] = stored_tickets(app)
    monkeypatch.setattr(clock, "utcnow", lambda: datetime(2026, 12, 1, 14, 5))
    with app.app_context():
        appeals.decide_ticket(ticket.ticket_number, action, notes="Catatan <untuk> Anda")
        db.session.commit()
    html = text_of(client.get("/banding/cek", query_string={"tiket": ticket.ticket_number}))
    assert f"Status: <strong>{label}</strong>" in html
    assert "1 Desember 2026, 21.05 WIB" in html
    assert "Catatan &lt;untuk&gt; Anda" in html


@pytest.mark.parametrize("typed", ["TKT-00000000", "tkt-zzzzzzzz", "<script>x</script>"])
def test_unknown_ticket_is_a_friendly_404_with_the_form(client, typed):
    response = client.get("/banding/cek", query_string={"tiket": typed})
    html = text_of(response)
    assert response.status_code == 404
    assert "Nomor tiket tidak ditemukan." in html
    assert 'name="tiket"' in html
    assert "<script>x" not in html
