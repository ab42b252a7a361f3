"""The outbox: queued in the event's transaction, delivered over real SMTP with retries."""
import re
from datetime import timedelta

from sqlalchemy import select

from guardsvc.storage import clock
from guardsvc.extensions import db
from guardsvc.outbox import delivery
from guardsvc.outbox.models import OutboxMessage
from guardsvc.outbox.service import queue_mail
from tests.support.smtp import html_body, smtp_server, text_body  # noqa: F401


def queue(app, count=1, recipient="budi@example.com"):
    """Queue ``count`` decision-like messages; returns their ids."""
    with app.app_context():
        ids = []
        for n in range(count):
            ids.append(queue_mail("appeal_decision", recipient, f"Pesan uji {n}", "appeal_decision",
                                  name="Budi", ticket_number="TKT-0000000A", decision="Disetujui",
                                  approved=True, notes=f"Catatan {n}", when="kemarin",
                                  status_url="http://example.test/banding/cek?tiket=TKT-0000000A"))
        db.session.commit()
        return ids


def rows(app):
    with app.app_context():
        found = db.session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        db.session.expunge_all()
        return found


def deliver_once(runner):
    result = runner.invoke(args=["mail", "deliver", "--once"])
    assert result.exit_code == 0, result.output
    return result.output


def test_deliver_once_sends_text_and_html_over_smtp(app, runner, smtp_server):
    [message_id] = queue(app)
    assert "sent 1" in deliver_once(runner)
    [received] = smtp_server.inbox.messages
    assert received["To"] == "budi@example.com"
    assert received["Subject"] == "Pesan uji 0"
    assert "Catatan 0" in text_body(received)
    assert "<strong>TKT-0000000A</strong>" in html_body(received)
    assert re.fullmatch(rf"<guardsvc-outbox-{message_id}-\d{{14}}@localhost>", received["Message-ID"])
    [row] = rows(app)
    assert row.status == "sent" and row.sent_at is not None and row.attempts == 1
    assert row.claim_token is None
    # Delivered: the body leaves the outbox, the metadata stays.
    assert (row.body_text, row.body_html, row.recipient) == ("", None, "budi@example.com")
    # Nothing left: a second run sends nothing more.
    assert "sent 0" in deliver_once(runner)
    assert len(smtp_server.inbox.messages) == 1


def test_outage_keeps_message_queued_with_backoff_then_delivers(app, runner, smtp_server, monkeypatch):
    smtp_server.stop()
    queue(app)
    start = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: start)
    assert "retrying 1" in deliver_once(runner)
    [row] = rows(app)
    assert row.status == "pending" and row.attempts == 1
    assert timedelta(seconds=24) <= row.next_attempt_at - start <= timedelta(seconds=36)  # 30 s, a fifth either way
    due = row.next_attempt_at
    assert "ConnectionRefusedError" in row.last_error
    # Not due yet: a run now does not even try.
    smtp_server.start()
    assert "sent 0, retrying 0" in deliver_once(runner)
    assert smtp_server.inbox.messages == []
    monkeypatch.setattr(clock, "utcnow", lambda: due + timedelta(seconds=1))
    assert "sent 1" in deliver_once(runner)
    assert len(smtp_server.inbox.messages) == 1
    [row] = rows(app)
    assert row.status == "sent" and row.attempts == 2 and row.last_error is None


def test_backoff_doubles_and_gives_up_after_max_attempts(app, runner, smtp_server, monkeypatch):
    smtp_server.stop()
    monkeypatch.setitem(app.config, "MAIL_MAX_ATTEMPTS", 4)
    queue(app)
    now = clock.utcnow()
    delays = []
    for _ in range(3):
        monkeypatch.setattr(clock, "utcnow", lambda: now)
        deliver_once(runner)
        [row] = rows(app)
        delays.append(row.next_attempt_at - now)
        now = row.next_attempt_at
    for delay, expected in zip(delays, (30, 60, 120), strict=True):  # doubling, each varied by up to a fifth
        assert timedelta(seconds=expected * 0.8) <= delay <= timedelta(seconds=expected * 1.2)
    monkeypatch.setattr(clock, "utcnow", lambda: now)
    assert "failed 1" in deliver_once(runner)
    [row] = rows(app)
    assert row.status == "failed" and row.attempts == 4 and row.last_error
    # A failed message is kept but never tried again.
    smtp_server.start()
    monkeypatch.setattr(clock, "utcnow", lambda: now + timedelta(days=1))
    deliver_once(runner)
    assert smtp_server.inbox.messages == []


def test_backoff_is_capped_at_one_hour_and_varied(app, ctx):
    assert timedelta(seconds=24) <= delivery.retry_delay(1) <= timedelta(seconds=36)
    waits = {delivery.retry_delay(20) for _ in range(20)}
    assert all(timedelta(minutes=48) <= wait <= timedelta(minutes=72) for wait in waits) and len(waits) > 1


def test_a_header_with_a_line_break_is_never_sent(app, runner, smtp_server):
    queue(app, recipient="bad\nheader@example.com")
    queue(app, recipient="ok@example.com")
    output = deliver_once(runner)
    assert "sent 1" in output and "failed 1" in output
    assert [m["To"] for m in smtp_server.inbox.messages] == ["ok@example.com"]
    assert [r.status for r in rows(app)] == ["failed", "sent"]


def test_temporary_smtp_refusal_is_retried(app, runner, smtp_server):
    smtp_server.inbox.refuse_next = "451 4.3.0 Try again later"
    queue(app)
    assert "retrying 1" in deliver_once(runner)
    assert rows(app)[0].status == "pending"


def test_permanent_smtp_refusal_fails_at_once(app, runner, smtp_server):
    smtp_server.inbox.refuse_next = "550 5.1.1 No such user"
    queue(app)
    assert "failed 1" in deliver_once(runner)
    row = rows(app)[0]
    assert row.status == "failed" and "550" in row.last_error
    assert (row.body_text, row.body_html) == ("", None)  # given up on: the body goes too


def test_a_claim_left_by_a_crashed_deliverer_expires(app, runner, smtp_server, monkeypatch):
    queue(app)
    with app.app_context():
        assert len(delivery.claim_due()) == 1  # claimed, then the process "dies"
        db.session.remove()
    assert "sent 0" in deliver_once(runner)  # the lease still holds
    later = clock.utcnow() + timedelta(seconds=app.config["DELIVERY_LEASE_SECONDS"] + 1)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    assert "sent 1" in deliver_once(runner)
    [row] = rows(app)
    assert row.status == "sent" and row.attempts == 2


def test_message_is_only_stored_when_the_transaction_commits(app):
    with app.app_context():
        queue_mail("appeal_decision", "x@example.com", "S", "appeal_decision", name="X",
                   ticket_number="TKT-0000000B", decision="Ditolak", approved=False, notes="n",
                   when="w", status_url="u")
        db.session.rollback()
    assert rows(app) == []
