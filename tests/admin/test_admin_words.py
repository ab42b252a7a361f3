"""The desk in words: the appellant's language, stored texts in the reader's language, the audit log named."""
import ast
import json
from pathlib import Path

import pytest
from flask_babel import force_locale
from sqlalchemy import update

from guardsvc.admin.audit_words import action_label, detail_lines
from guardsvc.appeals.conversation import ADMIN_KINDS
from guardsvc.appeals.statuses import DECIDED
from guardsvc.blocks.models import Block
from guardsvc.extensions import db
from guardsvc.features import each
from guardsvc.storage import clock
from guardsvc.stored_texts import for_storage, readable
from guardsvc import messages
from guardsvc.translation import LOCALES
from tests.support.blocks_helpers import from_ip
from tests.support.factories import submit_body
from tests.support.pages_support import post_form, sign_in_session, text_of

ENGLISH = {"Accept-Language": "en"}
SOURCE = Path(__file__).resolve().parents[2] / "guardsvc"


@pytest.fixture()
def admin_client(client, make_user):
    sign_in_session(client, make_user(role="admin", email="admin@example.com"))
    return client


def appeal(client, ip, headers=None):
    """An appeal from a browser of its own at ``ip`` (never the administrator's device)."""
    client = client.application.test_client()
    reply = client.post("/api/guard/unblock-tickets/submit", json=submit_body(), headers=headers or {},
                        **from_ip(ip))
    assert reply.status_code == 201
    return reply.get_json()["ticket_number"]


def test_the_ticket_page_names_the_appellants_language_and_warns_that_notes_go_as_written(admin_client):
    english = appeal(admin_client, "198.51.100.21", ENGLISH)
    page = text_of(admin_client.get(f"/admin/tiket/{english}"))
    assert '<dd id="bahasa-pemohon" lang="en">English</dd>' in page
    assert page.count("dikirim persis seperti yang Anda tulis, tanpa diterjemahkan") == 2  # decision and message
    assert "Tulislah dalam bahasa itu bila Anda bisa." in page
    assert "catatan baku dalam bahasa pemohon" in page
    indonesian = appeal(admin_client, "198.51.100.22")
    page = text_of(admin_client.get(f"/admin/tiket/{indonesian}"))
    assert ">Bahasa Indonesia</dd>" in page and "Tulislah dalam bahasa itu" not in page
    assert "IP lokal" not in page  # nothing to show: no row for it


def test_a_reason_written_by_an_approval_reads_in_each_readers_language(admin_client, make_block, app):
    reference = make_block(network="198.51.100.23")
    number = appeal(admin_client, "198.51.100.23", ENGLISH)
    # Decided by an administrator reading English: the stored reason is no sentence of that moment.
    post_form(admin_client, f"/admin/tiket/{number}/putuskan", {"action": "approve"},
              page=f"/admin/tiket/{number}", headers=ENGLISH)
    with app.app_context():
        assert db.session.scalar(db.select(Block.lift_reason).where(Block.reference == reference)) == \
            f"Banding {number} disetujui"
    assert f"Banding {number} disetujui" in text_of(admin_client.get("/admin/blokir"))
    english = text_of(admin_client.get("/admin/blokir", headers=ENGLISH))
    assert f"Appeal {number} approved" in english and "disetujui" not in english
    blocks = admin_client.get("/api/admin/blocks", headers=ENGLISH).get_json()["data"]
    assert [b["lift_reason"] for b in blocks if b["reference"] == reference] == [f"Appeal {number} approved"]


def test_old_rows_written_in_english_read_in_indonesian_too(admin_client, make_block, app):
    reference = make_block(network="198.51.100.24")
    with app.app_context():
        db.session.execute(update(Block).where(Block.reference == reference).values(
            reason="Device from ticket TKT-0000ABCD", lift_reason="Appeal TKT-0000ABCD approved",
            lifted_at=clock.utcnow()))
        db.session.commit()
    page = text_of(admin_client.get("/admin/blokir"))
    assert "Perangkat dari tiket TKT-0000ABCD" in page and "Banding TKT-0000ABCD disetujui" in page


def test_what_a_person_typed_is_never_rewritten(ctx):
    for typed in ("Banding diterima lewat telepon", "Appeal TKT-0000ABCD approved, see ticket", "", None,
                  "Keputusan CrowdSec #12"):
        assert readable(typed) == typed
    with force_locale(LOCALES["en"]):
        assert readable(for_storage(messages.CROWDSEC_BLOCK_REASON, decision_id=7, scenario="ssh: bf")) == \
            "CrowdSec decision #7: ssh: bf"


def test_the_audit_log_reads_in_words(admin_client, make_block):
    reference = make_block(network="198.51.100.25")
    number = appeal(admin_client, "198.51.100.25")
    post_form(admin_client, f"/admin/tiket/{number}/putuskan", {"action": "approve"}, page=f"/admin/tiket/{number}")
    post_form(admin_client, "/admin/blokir", {"ip": "192.0.2.0/24", "reason": "Pemindai"}, page="/admin/blokir")
    other = make_block(device_id="perangkat-1")
    post_form(admin_client, f"/admin/blokir/{other}/buka", {"reason": "Salah sasaran"}, page="/admin/blokir")
    page = text_of(admin_client.get("/admin/audit"))
    for words in ("Tiket disetujui", "Blokir dibuka", "Blokir dibuat", f"Blokir yang dibuka</dt><dd>{reference}",
                  "Izin yang ditambahkan</dt><dd>Tidak ada", "Sasaran</dt><dd>Rentang alamat IP",
                  "Sasaran</dt><dd>Perangkat", "Hanya untuk IP lokal tertentu</dt><dd>Tidak",
                  "Berakhir</dt><dd>Sampai dibuka", "Alasan</dt><dd>Salah sasaran"):
        assert words in page, words
    for raw in ("ticket.approved", "block.created", "lifted_blocks", "[]", "False", "['", "None"):
        assert raw not in page, raw
    english = text_of(admin_client.get("/admin/audit", headers=ENGLISH))
    for words in ("Ticket approved", "Block lifted", "Blocks lifted", "IP address range", "Until lifted"):
        assert words in english, words


def test_account_events_read_in_words(admin_client, runner, make_user):
    user = make_user(email="sari@example.com")
    assert runner.invoke(args=["users", "set-role", user.email, "admin"]).exit_code == 0
    assert runner.invoke(args=["users", "disable", user.email]).exit_code == 0
    page = text_of(admin_client.get("/admin/audit"))
    assert "Peran akun diubah" in page and "Sebelumnya</dt><dd>Pengguna" in page
    assert "Sekarang</dt><dd>Administrator" in page and "Akun dinonaktifkan" in page
    assert "user.role_set" not in page and "tokens_revoked" not in page


def actions_recorded_in_the_code():
    """Every audit action the code records: literal first arguments of the recording calls, f-strings expanded."""
    found = set()
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and node.args and getattr(node.func, "id", getattr(
                    node.func, "attr", None)) in ("record_event", "audit_account", "_audit")):
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
            elif isinstance(first, ast.JoinedStr):
                prefix = first.values[0].value
                suffixes = {"ticket.": set(DECIDED) | set(ADMIN_KINDS)}[prefix]
                found.update(prefix + suffix for suffix in suffixes)
    return found


def test_every_action_the_code_records_is_named_in_both_languages(ctx):
    recorded = actions_recorded_in_the_code()
    assert {"ticket.approved", "ticket.note", "block.lifted", "passkey.used", "user.2fa_reset"} <= recorded
    assert recorded - set(each("audit_actions")) == set()
    for action in recorded:
        indonesian = action_label(action)
        with force_locale(LOCALES["en"]):
            english = action_label(action)
        assert action not in (indonesian, english) and indonesian != english, action


def test_details_nobody_named_still_show_as_text(ctx):
    lines = detail_lines(json.dumps({"zeta": [1, 2], "email": "a@example.com", "flag": True}))
    assert lines == [("E-mail", "a@example.com"), ("flag", "Ya"), ("zeta", "1, 2")]
    assert detail_lines("bukan json") == [("Rincian", "bukan json")]
    assert detail_lines(None) == []
