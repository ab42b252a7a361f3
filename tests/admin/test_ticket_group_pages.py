"""The desk's pages for a wave (contract section 18): groups of tickets by block, one decision after a
confirmation that states the count, the service levels beside the queue. Without JavaScript, CSRF on every POST."""
import re

from sqlalchemy import select

from guardsvc.audit.models import AuditEvent
from guardsvc.appeals.conversation_models import ResponseTemplate
from guardsvc.blocks import service as blocks
from guardsvc.extensions import db
from tests.support.conversation_support import admin_browser  # noqa: F401
from tests.support.pages_support import post_form, sign_in_session, text_of
from tests.admin.test_ticket_groups import RANGE, appeal, tickets

GROUPS = "/admin/kelompok"


def wave(app, make_block, count=3, **block):
    """A range block and ``count`` appeals under it (every second one in English); its reference."""
    reference = make_block(network=RANGE, reason="Daftar komunitas", **block)
    for number in range(1, count + 1):
        appeal(app, f"198.51.100.{number}", f"hp-{number}", language="en" if number % 2 == 0 else "id",
               reason=f"Saya mahasiswa nomor {number}, kampus memakai satu alamat.")
    return reference


def decide_form(browser, reference, fields):
    return post_form(browser, f"{GROUPS}/{reference}/putuskan", fields, page=f"{GROUPS}/{reference}")


def test_the_queue_shows_a_wave_as_one_line_with_the_service_levels(app, admin_browser, make_block):
    reference = wave(app, make_block, count=4)
    appeal(app, "100.64.0.1")
    _, browser = admin_browser()
    html = text_of(browser.get("/admin"))
    line = re.search(rf'<tr id="kelompok-{reference}">.*?</tr>', html, re.S).group(0)
    assert RANGE in line and "<strong>4</strong>" in line and "Daftar komunitas" in line
    assert "Tanpa blokir" in html and "Semua kelompok (2)" in html
    assert 'id="judul-layanan">Tingkat layanan' in html and 'id="tertua-menunggu"' in html
    assert "Belum ada tiket yang diputuskan dalam 7 hari terakhir." in html
    assert re.search(r'<svg class="age-chart"[^>]*role="img"', html)
    assert re.search(r"<desc id=\"keterangan-umur\">Satu batang per rentang umur; 5 tiket menunggu\. "
                     r"kurang dari 1 jam: 5\.", html)
    english = admin_browser("en@example.com")[1]
    english.set_cookie("guardsvc_lang", "en")
    page = text_of(english.get("/admin"))
    assert "Service levels" in page and "Oldest waiting ticket" in page and "Tickets by block" in page


def test_a_group_page_shows_what_each_person_wrote_and_their_language(app, admin_browser, make_block):
    reference = wave(app, make_block, count=3)
    _, browser = admin_browser()
    listing = text_of(browser.get(GROUPS))
    assert f'href="{GROUPS}/{reference}"' in listing and "<strong>3</strong>" in listing
    html = text_of(browser.get(f"{GROUPS}/{reference.lower()}"))
    for number in (1, 2, 3):
        assert f"Saya mahasiswa nomor {number}, kampus memakai satu alamat." in html
    assert html.count('lang="en">English</td>') == 1 and html.count(">Bahasa Indonesia</td>") == 2
    assert 'id="jumlah-menunggu">3 tiket; yang tertua diajukan' in html
    assert "Dibuat di guardsvc" in html and 'name="decision" value="approved"' in html
    assert browser.get(f"{GROUPS}/BLK-00000000").status_code == 404
    ungrouped = text_of(browser.get(f"{GROUPS}/tanpa-blokir"))
    assert "Tiket tanpa blokir" in ungrouped and 'name="decision"' not in ungrouped


def test_a_decision_is_confirmed_with_its_count_then_taken_for_those_tickets_only(app, admin_browser, make_block):
    reference = wave(app, make_block, count=3)
    admin, browser = admin_browser()
    confirm = decide_form(browser, reference, {"decision": "approved", "notes": "Daftar itu salah.\nMaaf."})
    html = text_of(confirm)
    assert confirm.status_code == 200 and "Anda akan menyetujui <strong>3</strong> tiket." in html
    assert "Ya, setujui 3 tiket" in html and "Daftar itu salah.\nMaaf." in html
    assert {t.status for t in tickets(app)} == {"pending"}  # nothing decided before the confirmation
    newest = re.search(r'name="sampai" value="(\d+)"', html).group(1)
    late = appeal(app, "198.51.100.9", "hp-9")  # arrives after the page counted
    done = decide_form(browser, reference, {"decision": "approved", "notes": "Daftar itu salah.\nMaaf.",
                                            "sampai": newest, "konfirmasi": "1"})
    assert done.status_code == 303 and done.headers["Location"].endswith(GROUPS)
    assert f"Tiket untuk blokir {reference} disetujui: 3." in text_of(browser.get(GROUPS))
    decided = {t.ticket_number: t for t in tickets(app)}
    assert decided.pop(late).status == "pending"
    assert {(t.status, t.admin_notes, t.resolved_by_id) for t in decided.values()} == {
        ("approved", "Daftar itu salah.\nMaaf.", admin.id)}


def test_a_rejection_with_the_standard_notes_and_a_confirmation_for_a_group_decided_meanwhile(
        app, admin_browser, make_block, runner):
    reference = wave(app, make_block, count=2)
    _, browser = admin_browser()
    html = text_of(decide_form(browser, reference, {"decision": "rejected", "notes": ""}))
    assert "Anda akan menolak <strong>2</strong> tiket." in html and "Catatan baku" in html
    assert runner.invoke(args=["tickets", "decide-block", reference, "--reject"]).exit_code == 0
    late = decide_form(browser, reference, {"decision": "rejected", "notes": "", "sampai": "999999",
                                            "konfirmasi": "1"})
    assert late.status_code == 303 and late.headers["Location"].endswith(f"{GROUPS}/{reference}")
    assert "kelompok ini sudah diputuskan" in text_of(browser.get(f"{GROUPS}/{reference}"))
    with app.app_context():
        assert len(db.session.scalars(select(AuditEvent).where(AuditEvent.action == "ticket.rejected")).all()) == 2


def test_bad_input_shows_the_form_again_and_decides_nothing(app, admin_browser, make_block):
    reference = wave(app, make_block, count=1)
    _, browser = admin_browser()
    for fields, field_error in (({"notes": "Tanpa keputusan"}, "Wajib diisi."),
                                ({"decision": "rejected", "lift_block": "true"}, "Blokir hanya dapat dibuka bersama persetujuan."),
                                ({"decision": "approved", "notes": "n" * 1001}, "Maksimal 1000 karakter.")):
        answer = decide_form(browser, reference, {**fields, "konfirmasi": "1"})
        html = text_of(answer)
        assert answer.status_code == 422 and 'id="ringkasan-kesalahan"' in html and field_error in html
        assert (fields.get("notes") or "") + "</textarea>" in html
    assert {t.status for t in tickets(app)} == {"pending"}
    no_csrf = browser.post(f"{GROUPS}/{reference}/putuskan", data={"decision": "approved", "konfirmasi": "1"})
    assert no_csrf.status_code == 400 and {t.status for t in tickets(app)} == {"pending"}


def test_a_reply_template_starts_the_notes(app, admin_browser, make_block):
    reference = wave(app, make_block, count=1)
    with app.app_context():
        template = ResponseTemplate(title="Daftar salah", body="Alamat kampus masuk daftar komunitas secara keliru.")
        db.session.add(template)
        db.session.commit()
        template_id = template.id
    _, browser = admin_browser()
    html = text_of(browser.get(f"{GROUPS}/{reference}?templat={template_id}"))
    assert "Alamat kampus masuk daftar komunitas secara keliru.</textarea>" in html


def test_the_block_of_a_group_is_made_self_releasable_from_its_page(app, admin_browser, make_block):
    reference = wave(app, make_block, count=2)
    _, browser = admin_browser()
    assert "Tandai blokir ini dapat dibuka sendiri" in text_of(browser.get(f"{GROUPS}/{reference}"))
    answer = post_form(browser, f"/admin/blokir/{reference}/lepas-sendiri", {"aktif": "1", "kembali": "kelompok"},
                       page=f"{GROUPS}/{reference}")
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"{GROUPS}/{reference}")
    assert "Jangan izinkan buka sendiri" in text_of(browser.get(f"{GROUPS}/{reference}"))
    with app.app_context():
        assert blocks.get_block(reference).self_release is True
        [entry] = db.session.scalars(select(AuditEvent).where(AuditEvent.action == "block.self_release_changed"))
        assert entry.target == reference
    assert {t.status for t in tickets(app)} == {"pending"}  # the tickets already there still wait


def test_the_group_pages_are_for_administrators_only(app, client, make_user, make_block):
    reference = wave(app, make_block, count=1)
    assert client.get(GROUPS).status_code == 302
    sign_in_session(client, make_user(role="user"))
    assert client.get(GROUPS).status_code == 403 and client.get(f"{GROUPS}/{reference}").status_code == 403
    assert post_form(client, f"{GROUPS}/{reference}/putuskan", {"decision": "approved", "konfirmasi": "1"},
                     page="/akun").status_code == 403
    assert {t.status for t in tickets(app)} == {"pending"}
