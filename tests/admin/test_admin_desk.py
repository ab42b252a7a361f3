"""The administrator's desk: the queue, claims, reply templates and the digest of new appeals."""
import re
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.appeals import desk, digest
from guardsvc.appeals.conversation_models import ResponseTemplate
from guardsvc.appeals.models import UnblockTicket
from guardsvc.web.errors import InvalidState
from guardsvc.extensions import db
from tests.support.conversation_support import admin_browser, deliver  # noqa: F401
from tests.support.live import all_at_once
from tests.support.pages_support import post_form, text_of
from tests.support.smtp import html_body, smtp_server, text_body  # noqa: F401

T0 = datetime(2026, 11, 23, 3, 0)


@pytest.fixture()
def moving_clock(monkeypatch):
    """``moving_clock.at(minutes)``: the time is T0 plus that many minutes until moved again."""
    class Clock:
        now = T0

        def at(self, minutes):
            self.now = T0 + timedelta(minutes=minutes)

    fake = Clock()
    monkeypatch.setattr(clock, "utcnow", lambda: fake.now)
    return fake


def _ticket_row(app, number):
    with app.app_context():
        ticket = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
        db.session.expunge(ticket)
        return ticket


def test_queue_defaults_to_pending_oldest_first_with_age(admin_browser, make_ticket, moving_clock):
    moving_clock.at(0)
    old = make_ticket("198.51.100.1").ticket_number
    moving_clock.at(60)
    new = make_ticket("198.51.100.2").ticket_number
    moving_clock.at(180)
    _, browser = admin_browser()
    html = text_of(browser.get("/admin"))
    assert html.index(old) < html.index(new)
    assert re.search(r'data-label="Umur">3 jam<', html) and re.search(r'data-label="Umur">2 jam<', html)
    post_form(browser, f"/admin/tiket/{old}/putuskan", {"action": "approve"}, follow_redirects=True)
    html = text_of(browser.get("/admin"))
    assert new in html and old not in html  # decided tickets leave the default view
    every = text_of(browser.get("/admin?status="))
    assert every.index(new) < every.index(old)  # "Semua": newest first


def test_two_admins_claim_one_wins(app, admin_browser, make_ticket):
    number = make_ticket().ticket_number
    first, first_browser = admin_browser("ani@example.com", "Ani")
    second, second_browser = admin_browser("bayu@example.com", "Bayu")
    assert "Klaim tiket ini" in text_of(second_browser.get(f"/admin/tiket/{number}"))
    assert post_form(first_browser, f"/admin/tiket/{number}/klaim").status_code == 303
    refused = post_form(second_browser, f"/admin/tiket/{number}/klaim", follow_redirects=True)
    assert "Tiket ini sudah diklaim oleh Ani." in text_of(refused)
    assert "Diklaim oleh <strong>Ani</strong>" in text_of(second_browser.get(f"/admin/tiket/{number}"))
    assert re.search(r'data-label="Ditangani">Ani<', text_of(second_browser.get("/admin")))
    assert _ticket_row(app, number).claimed_by_id == first.id
    # Only the holder releases.
    post_form(second_browser, f"/admin/tiket/{number}/lepas")
    assert _ticket_row(app, number).claimed_by_id == first.id
    assert post_form(first_browser, f"/admin/tiket/{number}/lepas").status_code == 303
    assert _ticket_row(app, number).claimed_by_id is None
    assert post_form(second_browser, f"/admin/tiket/{number}/klaim").status_code == 303
    assert _ticket_row(app, number).claimed_by_id == second.id


def test_a_claim_is_decided_by_the_database_not_by_what_was_read(app, make_user, make_ticket):
    number = make_ticket().ticket_number
    first, second = make_user(role="admin"), make_user(role="admin")
    with app.app_context():
        stale = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
        assert stale.claimed_by_id is None  # this administrator saw it free ...
        with app.app_context():  # ... while another one claimed it and committed
            other = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
            desk.claim_ticket(other, db.session.merge(first))
            db.session.commit()
        with pytest.raises(InvalidState):
            desk.claim_ticket(stale, db.session.merge(second))
        assert stale.claimed_by_id == first.id


def test_claim_and_message_posts_need_csrf(app, admin_browser, make_ticket):
    number = make_ticket().ticket_number
    _, browser = admin_browser()
    assert browser.post(f"/admin/tiket/{number}/klaim").status_code == 400
    assert browser.post(f"/admin/tiket/{number}/pesan", data={"body": "x", "kind": "admin"}).status_code == 400
    assert browser.post("/admin/templat", data={"title": "x", "body": "y"}).status_code == 400


def test_reply_templates_crud_and_prefill(app, admin_browser, make_ticket):
    number = make_ticket().ticket_number
    _, browser = admin_browser()
    assert "Belum ada templat." in text_of(browser.get("/admin/templat"))
    bad = post_form(browser, "/admin/templat", {"title": "", "body": "Teks"})
    assert bad.status_code == 422 and 'value="Teks"' not in text_of(bad) and ">Teks</textarea>" in text_of(bad)
    assert post_form(browser, "/admin/templat", {"title": "Minta bukti", "body": "Mohon kirim <bukti>."}).status_code == 303
    with app.app_context():
        template_id = db.session.scalar(select(ResponseTemplate.id))
    listing = text_of(browser.get("/admin/templat"))
    assert "Minta bukti" in listing and "Mohon kirim &lt;bukti&gt;." in listing

    page = text_of(browser.get(f"/admin/tiket/{number}"))
    assert f'<option value="{template_id}"' in page and "Minta bukti</option>" in page
    prefilled = text_of(browser.get(f"/admin/tiket/{number}?templat={template_id}"))
    assert re.search(r'id="teks-pesan"[^>]*>Mohon kirim &lt;bukti&gt;\.</textarea>', prefilled)
    for unknown in ("999999", "abc", "1" * 40):
        assert browser.get(f"/admin/tiket/{number}?templat={unknown}").status_code == 200

    assert "Minta bukti" in text_of(browser.get(f"/admin/templat/{template_id}"))
    assert post_form(browser, f"/admin/templat/{template_id}",
                     {"title": "Minta bukti foto", "body": "Kirim foto."}).status_code == 303
    assert "Minta bukti foto" in text_of(browser.get("/admin/templat"))
    assert post_form(browser, f"/admin/templat/{template_id}/hapus").status_code == 303
    assert "Belum ada templat." in text_of(browser.get("/admin/templat"))
    assert browser.get(f"/admin/templat/{template_id}").status_code == 404


def test_templates_page_is_for_admins_only(client, make_user):
    from tests.support.pages_support import sign_in_session

    sign_in_session(client, make_user(role="user"))
    assert client.get("/admin/templat").status_code == 403


def _digest_opt_in(browser, on=True):
    response = post_form(browser, "/admin/pemberitahuan", {"aktif": "1" if on else "0"}, page="/akun")
    assert response.status_code == 303


def test_digest_at_most_once_per_interval_and_only_to_those_who_opted_in(
        app, runner, smtp_server, admin_browser, make_ticket, moving_clock):
    moving_clock.at(0)
    _, listening = admin_browser("ani@example.com", "Ani")
    _, quiet = admin_browser("bayu@example.com", "Bayu")
    _digest_opt_in(listening)
    assert "menyala" in text_of(listening.get("/akun")) and "mati" in text_of(quiet.get("/akun"))

    moving_clock.at(1)
    first = make_ticket("198.51.100.1", name="Nama Rahasia", email="rahasia@example.com").ticket_number
    deliver(runner)
    assert smtp_server.inbox.to("ani@example.com") == []  # less than five minutes since opting in

    moving_clock.at(6)
    deliver(runner)
    deliver(runner)  # a second round at the same time queues nothing more
    [mail] = smtp_server.inbox.to("ani@example.com")
    assert mail["Subject"] == "1 permohonan baru menunggu peninjauan"
    text = text_body(mail)
    assert first in text and f"http://localhost:8000/admin/tiket/{first}" in text and "5 menit" in text
    assert "Nama Rahasia" not in text and "rahasia@example.com" not in text + html_body(mail)

    moving_clock.at(7)
    second = make_ticket("198.51.100.2").ticket_number
    moving_clock.at(9)
    deliver(runner)
    assert len(smtp_server.inbox.to("ani@example.com")) == 1
    moving_clock.at(11)
    deliver(runner)
    latest = smtp_server.inbox.to("ani@example.com")[-1]
    assert second in text_body(latest) and first not in text_body(latest)

    moving_clock.at(30)
    deliver(runner)  # nothing new: no e-mail
    assert len(smtp_server.inbox.to("ani@example.com")) == 2
    assert smtp_server.inbox.to("bayu@example.com") == []

    _digest_opt_in(listening, on=False)
    make_ticket("198.51.100.3")
    moving_clock.at(60)
    deliver(runner)
    assert len(smtp_server.inbox.to("ani@example.com")) == 2


def test_two_deliverers_queue_one_digest(app, make_user, make_ticket, moving_clock):
    admin = make_user(role="admin")
    with app.app_context():
        digest.set_digest_opt_in(db.session.merge(admin), True)
        db.session.commit()
    moving_clock.at(1)
    make_ticket()
    moving_clock.at(10)
    real_new_tickets = digest._new_tickets
    raced = []

    def other_deliverer_first(since, until):
        # The other deliverer runs its whole round after this one read who is due.
        if not raced:
            raced.append(True)
            with app.app_context():
                assert digest.queue_appeal_digests() == 1
                db.session.commit()
        return real_new_tickets(since, until)

    with app.app_context():
        digest._new_tickets = other_deliverer_first
        try:
            assert digest.queue_appeal_digests() == 0
        finally:
            digest._new_tickets = real_new_tickets
        db.session.commit()
        from guardsvc.outbox.models import OutboxMessage

        kinds = db.session.scalars(select(OutboxMessage.kind).where(OutboxMessage.kind == "appeal_digest")).all()
        assert kinds == ["appeal_digest"]


def test_plain_users_have_no_digest_switch(app, client, make_user):
    from tests.support.pages_support import sign_in_session

    sign_in_session(client, make_user(role="user"))
    assert "E-mail permohonan baru" not in text_of(client.get("/akun"))
    assert post_form(client, "/admin/pemberitahuan", {"aktif": "1"}, page="/akun").status_code == 403
    with app.app_context():
        assert db.session.scalar(select(User.notify_new_appeals)) is False


def test_eight_administrators_claiming_at_once_leave_one_holder(app, make_user, make_ticket):
    number = make_ticket().ticket_number
    admins = [make_user(role="admin") for _ in range(8)]

    def claim(i):
        with app.app_context():
            ticket = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
            try:
                desk.claim_ticket(ticket, db.session.merge(admins[i]))
                db.session.commit()
                return admins[i].id
            except InvalidState:
                db.session.rollback()
                return None

    winners = [winner for winner in all_at_once(8, claim) if winner is not None]
    assert len(winners) == 1
    assert _ticket_row(app, number).claimed_by_id == winners[0]


def test_a_refused_message_keeps_the_text_and_sends_nothing(app, admin_browser, make_ticket):
    from guardsvc.outbox.models import OutboxMessage

    number = make_ticket().ticket_number
    _, browser = admin_browser()
    too_long = post_form(browser, f"/admin/tiket/{number}/pesan", {"body": "b" * 2001, "kind": "admin"})
    assert too_long.status_code == 422 and "b" * 2001 + "</textarea>" in text_of(too_long)
    assert 'id="ringkasan-kesalahan"' in text_of(too_long)
    unknown_kind = post_form(browser, f"/admin/tiket/{number}/pesan", {"body": "Halo", "kind": "publik"})
    assert unknown_kind.status_code == 422
    with app.app_context():
        assert db.session.scalars(select(OutboxMessage.kind)).all() == ["appeal_received"]
