"""Retention (contract section 10): what `flask purge` erases, and exactly when."""
import json
from datetime import timedelta

import pytest

from guardsvc.storage import clock
from guardsvc.appeals import service as appeals
from guardsvc.appeals.conversation_models import TicketMessage
from guardsvc.appeals.models import UnblockTicket
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.sessions.models import UserSession
from guardsvc.signin.models import LoginEvent
from tests.support.pages_support import sign_in_session, text_of

DAY = timedelta(days=1)
TEST_SUBJECT = "Uji retensi"  # tells these messages from the decision e-mails the fixtures queue


@pytest.fixture()
def moved_clock(monkeypatch):
    """``moved_clock(delta)`` moves guardsvc's clock by ``delta`` from the real now."""
    start = clock.utcnow()

    def move(delta):
        monkeypatch.setattr(clock, "utcnow", lambda: start + delta)
        return start + delta
    return move


def decided(app, make_ticket, moved_clock, ip, days_ago, action="approve"):
    """A ticket from ``ip`` decided ``days_ago`` days before the real now."""
    number = make_ticket(ip).ticket_number
    moved_clock(-days_ago * DAY)
    with app.app_context():
        appeals.decide_ticket(number, action)
        db.session.commit()
    moved_clock(timedelta())
    return number


def mail(status, created_at, body="Halo Budi"):
    return OutboxMessage(kind="appeal_decision", recipient="budi@example.com", subject=TEST_SUBJECT,
                         body_text=body, body_html=f"<p>{body}</p>", status=status,
                         next_attempt_at=created_at, created_at=created_at)


@pytest.fixture()
def records(app, make_ticket, make_user, moved_clock):
    """One record on each side of every rule's line."""
    due_ticket = decided(app, make_ticket, moved_clock, "198.51.100.1", 31)
    fresh_ticket = decided(app, make_ticket, moved_clock, "198.51.100.2", 29, "reject")
    pending_ticket = make_ticket("198.51.100.3").ticket_number
    now = clock.utcnow()
    user_id = make_user().id
    with app.app_context():
        db.session.add_all([
            LoginEvent(created_at=now - 91 * DAY, email="lama@example.com", ip_address="192.0.2.1", result="success"),
            LoginEvent(created_at=now - 89 * DAY, email="baru@example.com", ip_address="192.0.2.2", result="success"),
            mail("sent", now - DAY), mail("failed", now - 40 * DAY), mail("pending", now - 40 * DAY),
            AuditEvent(created_at=now - DAY, actor_label="cli", action="block.created", target="BLK-0000ABCD",
                       details=json.dumps({"target": "192.0.2.9/32", "local_ip": "10.0.0.2", "reason": "Spam"})),
        ])
        for number in (due_ticket, fresh_ticket):
            ticket = db.session.query(UnblockTicket).filter_by(ticket_number=number).one()
            db.session.add(TicketMessage(ticket_id=ticket.id, author_kind="appellant", body=f"Pesan {number}",
                                         created_at=now - 30 * DAY))
        for days_idle in (15, 13):  # the idle limit is 14 days
            db.session.add(UserSession(user_id=user_id, key_hash=f"{days_idle:064d}", created_at=now - 20 * DAY,
                                       last_seen_at=now - days_idle * DAY, ip_address="192.0.2.3"))
        db.session.commit()
    return due_ticket, fresh_ticket, pending_ticket


def snapshot(app):
    with app.app_context():
        return {
            "tickets": {t.ticket_number: (t.name, t.email, t.ip_address, t.personal_data_erased_at)
                        for t in db.session.query(UnblockTicket)},
            "sign_ins": sorted(e.email for e in db.session.query(LoginEvent)),
            "mail": sorted((m.status, m.body_text, m.body_html) for m in db.session.query(OutboxMessage)
                           if m.subject == TEST_SUBJECT),
            "audit": sorted(e.details or "" for e in db.session.query(AuditEvent)),
            "messages": sorted(m.body for m in db.session.query(TicketMessage)),
            "sessions": sorted(s.key_hash[-2:] for s in db.session.query(UserSession)),
        }


def purge(runner, *args):
    result = runner.invoke(args=["purge", *args])
    assert result.exit_code == 0, result.output
    return dict(line.split(": ", 1) for line in result.output.splitlines())


def test_dry_run_counts_and_changes_nothing(app, runner, records):
    before = snapshot(app)
    report = purge(runner, "--dry-run")
    assert {label: value.split()[0] for label, value in report.items()} == {
        "tickets erased": "1", "sign-in events deleted": "1", "sign-in countries deleted": "0",
        "mail bodies removed": "2",
        "finished mail deleted": "1", "audit entries scrubbed": "1", "idle sessions deleted": "1",
        "password reset links deleted": "0", "e-mailed sign-in codes deleted": "0",
        "approval and self-release allow entries deleted": "0",
        "used self-release proofs deleted": "0", "self-release addresses erased": "0",
        "finished webhook deliveries deleted": "0", "old edge list changes deleted": "0",
        "quiet nodes deleted": "0"}
    assert snapshot(app) == before


def test_purge_erases_exactly_the_due_rows(app, runner, records):
    due, fresh, pending = records
    assert purge(runner) == {"tickets erased": "1", "sign-in events deleted": "1", "sign-in countries deleted": "0",
                             "mail bodies removed": "2",
                             "finished mail deleted": "1", "audit entries scrubbed": "1",
                             "idle sessions deleted": "1", "password reset links deleted": "0",
                             "e-mailed sign-in codes deleted": "0",
                             "approval and self-release allow entries deleted": "0",
                             "used self-release proofs deleted": "0", "self-release addresses erased": "0",
                             "finished webhook deliveries deleted": "0",
                             "old edge list changes deleted": "0", "quiet nodes deleted": "0"}
    after = snapshot(app)
    assert after["messages"] == [f"Pesan {fresh}"]  # the erased ticket's conversation went with it
    assert after["sessions"] == ["13"]
    name, email, ip, erased_at = after["tickets"][due]
    assert (name, email, ip) == (None, None, None) and erased_at is not None
    assert after["tickets"][fresh][:3] == ("Budi Santoso", "budi@example.com", "198.51.100.2")
    assert after["tickets"][pending][3] is None
    assert after["sign_ins"] == ["baru@example.com"]
    assert after["mail"] == [("pending", "Halo Budi", "<p>Halo Budi</p>"), ("sent", "", None)]
    audit_details = [details for details in after["audit"] if "Spam" in details]
    assert audit_details == [json.dumps({"reason": "Spam"})]
    assert "192.0.2.9" not in json.dumps(after["audit"])
    with app.app_context():
        ticket = db.session.query(UnblockTicket).filter_by(ticket_number=due).one()
        assert all(getattr(ticket, field) is None for field in (
            "name", "email", "phone", "reason", "ip_address", "local_ip", "device_id", "user_agent"))
        assert ticket.status == "approved" and ticket.admin_notes == "Permohonan disetujui."
    assert set(purge(runner).values()) == {"0"}  # nothing is due twice


def test_the_public_check_still_answers_after_purge(app, client, runner, records, make_user):
    due = records[0]
    purge(runner)
    check = client.get(f"/api/guard/unblock-tickets/check/{due}")
    assert check.status_code == 200
    assert check.get_json()["data"]["status"] == "approved"
    assert check.get_json()["data"]["admin_notes"] == "Permohonan disetujui."
    assert client.get(f"/banding/cek?tiket={due}").status_code == 200
    sign_in_session(client, make_user(role="admin"))
    page = text_of(client.get(f"/admin/tiket/{due}"))
    assert "Data pribadi telah dihapus" in page and "None" not in page
    assert client.get("/admin").status_code == 200
    detail = client.get(f"/api/admin/tickets/{due}").get_json()["data"]
    assert detail["name"] is None and detail["personal_data_erased_at"] is not None


def test_erased_tickets_are_not_one_client(app, runner, make_ticket, moved_clock):
    first = decided(app, make_ticket, moved_clock, "198.51.100.1", 40)
    second = decided(app, make_ticket, moved_clock, "198.51.100.2", 35)
    purge(runner)
    with app.app_context():
        ticket = appeals.find_ticket(second)
        assert ticket.ip_address is None and appeals.earlier_tickets(ticket) == []
        assert appeals.find_ticket(first).personal_data_erased_at is not None


def test_retention_periods_come_from_settings(app, runner, records, monkeypatch):
    monkeypatch.setitem(app.config, "RETENTION_DAYS", 28)
    monkeypatch.setitem(app.config, "SIGNIN_HISTORY_DAYS", 100)
    report = purge(runner, "--dry-run")
    assert report["tickets erased"].startswith("2") and report["sign-in events deleted"].startswith("0")


def test_purge_works_in_batches(app, runner, records, monkeypatch):
    from guardsvc.retention import service as retention

    monkeypatch.setattr(retention, "BATCH_SIZE", 1)
    commits = []
    with app.app_context():
        report = dict(retention.purge(after_batch=lambda: commits.append(1)))
        db.session.commit()
    assert report["mail bodies removed"] == 2 and len(commits) == sum(report.values())



def test_reset_links_and_spent_approval_allow_entries_leave_with_the_retention_period(app, runner, make_user):
    from datetime import timedelta

    from guardsvc.accounts.models import PasswordReset
    from guardsvc.blocks.models import AllowEntry
    from guardsvc.storage import clock

    user = make_user()
    now = clock.utcnow()
    old, recent = now - timedelta(days=31), now - timedelta(days=1)
    with app.app_context():
        for n, created in enumerate((old, recent)):
            db.session.add(PasswordReset(user_id=user.id, secret_hash=f"{n}" * 64, created_at=created,
                                         expires_at=created + timedelta(minutes=30), ip_address="192.0.2.1"))
        spent = dict(network="192.0.2.7/32", paired_device_id="laptop-budi", made_by="approval", from_approval=True)
        db.session.add(AllowEntry(**spent, created_at=old - timedelta(days=30), expires_at=old))  # ended long ago
        db.session.add(AllowEntry(**spent, created_at=recent, expires_at=now + timedelta(days=29)))  # running
        db.session.add(AllowEntry(network="192.0.2.8/32", created_at=old, expires_at=old))  # an administrator's
        db.session.commit()
    report = purge(runner)
    assert report["password reset links deleted"] == "1" and report["approval and self-release allow entries deleted"] == "1"
    with app.app_context():
        assert db.session.scalars(db.select(PasswordReset.created_at)).all() == [recent]
        assert len(db.session.scalars(db.select(AllowEntry.id)).all()) == 2
