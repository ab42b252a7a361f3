"""The desk knows its service levels (contract section 18): the first answer and the decision of each ticket
timed into /metrics, the oldest pending ticket, the median time to decision and the pending tickets by age on the
page, and a digest that says first when the queue is past its target."""
from datetime import timedelta

from prometheus_client import REGISTRY
from sqlalchemy import select, text

from guardsvc import create_app
from guardsvc.appeals import conversation, service as appeals, service_levels
from guardsvc.appeals.models import UnblockTicket
from guardsvc.extensions import db
from tests.support.conversation_support import admin_browser, deliver  # noqa: F401
from tests.support.pages_support import text_of
from tests.support.smtp import html_body, smtp_server, text_body  # noqa: F401
from tests.admin.test_admin_desk import T0, moving_clock  # noqa: F401
from tests.metrics.test_metrics import TOKEN, value

FIRST = "guardsvc_ticket_first_answer_seconds"
DECISION = "guardsvc_ticket_decision_seconds"


def sample(name, **labels):
    return REGISTRY.get_sample_value(name, labels) or 0.0


def ticket_row(app, number):
    with app.app_context():
        found = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
        db.session.expunge(found)
        return found


def test_the_first_answer_is_a_message_to_the_appellant_or_the_decision(app, make_user, make_ticket, moving_clock):
    admin = make_user(role="admin")
    moving_clock.at(0)
    asked = make_ticket("198.51.100.1").ticket_number
    silent = make_ticket("198.51.100.2").ticket_number
    before = {"first": (sample(FIRST + "_count"), sample(FIRST + "_sum")),
              "approved": (sample(DECISION + "_count", decision="approved"),
                           sample(DECISION + "_sum", decision="approved"))}
    with app.app_context():
        actor = db.session.merge(admin)
        moving_clock.at(5)
        conversation.post_as_admin(appeals.find_ticket(asked), "Catatan internal saja.", "note", actor=actor)
        moving_clock.at(10)
        conversation.post_as_admin(appeals.find_ticket(asked), "Dari jaringan mana Anda?", "admin", actor=actor)
        moving_clock.at(20)
        conversation.post_as_admin(appeals.find_ticket(asked), "Masih menunggu jawaban.", "admin", actor=actor)
        moving_clock.at(30)
        appeals.decide_ticket(silent, "approve", actor=actor)
        moving_clock.at(60)
        appeals.decide_ticket(asked, "approve", actor=actor)
        db.session.commit()
    assert ticket_row(app, asked).first_answered_at == T0 + timedelta(minutes=10)
    assert ticket_row(app, silent).first_answered_at == T0 + timedelta(minutes=30)
    count, total = before["first"]
    assert (sample(FIRST + "_count") - count, sample(FIRST + "_sum") - total) == (2, 600 + 1800)
    count, total = before["approved"]
    assert (sample(DECISION + "_count", decision="approved") - count,
            sample(DECISION + "_sum", decision="approved") - total) == (2, 3600 + 1800)


def test_metrics_have_the_oldest_pending_age_and_both_histograms(app, client, make_ticket, monkeypatch,
                                                                moving_clock):
    monkeypatch.setitem(app.config, "METRICS_TOKEN", TOKEN)
    moving_clock.at(0)
    make_ticket("198.51.100.1")
    moving_clock.at(2)
    make_ticket("198.51.100.2")
    moving_clock.at(90)
    scraped = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).get_data(as_text=True)
    assert value(scraped, "guardsvc_oldest_pending_ticket_age_seconds") == 90 * 60
    assert f'{FIRST}_bucket{{le="3600.0"}}' in scraped and f"# TYPE {DECISION} histogram" in scraped
    with app.app_context():
        for ticket in db.session.scalars(select(UnblockTicket)):
            appeals.decide_ticket(ticket.ticket_number, "reject")
        db.session.commit()
    scraped = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).get_data(as_text=True)
    assert value(scraped, "guardsvc_oldest_pending_ticket_age_seconds") == 0
    assert value(scraped, f'{DECISION}_bucket{{decision="rejected",le="7200.0"}}') >= 2


def _decided(app, make_ticket, moving_clock, submitted, decided, ip):
    moving_clock.at(submitted)
    number = make_ticket(ip).ticket_number
    moving_clock.at(decided)
    with app.app_context():
        appeals.decide_ticket(number, "reject")
        db.session.commit()


def test_the_median_time_to_decision_counts_the_last_seven_days(app, make_ticket, moving_clock):
    day = 24 * 60
    _decided(app, make_ticket, moving_clock, 0, 10 * day, "198.51.100.1")  # decided 12 days before "now"
    for minutes, ip in ((30, "198.51.100.2"), (90, "198.51.100.3"), (60, "198.51.100.4")):
        _decided(app, make_ticket, moving_clock, 20 * day, 20 * day + minutes, ip)
    moving_clock.at(22 * day)
    with app.app_context():
        assert service_levels.median_decision_seconds() == 3600
    _decided(app, make_ticket, moving_clock, 22 * day, 22 * day + 120, "198.51.100.5")
    with app.app_context():
        assert service_levels.median_decision_seconds() == 75 * 60  # (60 + 90) / 2
        moving_clock.at(40 * day)
        assert service_levels.median_decision_seconds() is None


def test_pending_tickets_by_age_and_the_target_on_the_desk(app, admin_browser, make_ticket, moving_clock):
    for minutes, ip in ((0, "198.51.100.1"), (60 * 42, "198.51.100.2"), (60 * 52, "198.51.100.3"),
                        (60 * 54, "198.51.100.4")):
        moving_clock.at(minutes)
        make_ticket(ip)
    moving_clock.at(60 * 54 + 30)  # 54.5 hours after the first
    with app.app_context():
        bands = service_levels.pending_by_age()
    assert [(band.low, band.high, band.count) for band in bands] == [
        (0, 1, 1), (1, 4, 1), (4, 12, 0), (12, 24, 1), (24, 72, 1), (72, 168, 0), (168, None, 0)]
    _, browser = admin_browser()
    html = text_of(browser.get("/admin"))
    assert "melewati target 24 jam" in html and "2 hari" in html
    table = html[html.index('class="chart-data age-data"'):]
    assert "<th scope=\"row\" data-label=\"Umur\">1–3 hari</th><td data-label=\"Tiket menunggu\">1</td>" in table
    assert "7 hari atau lebih" in table


def test_the_digest_says_first_that_the_queue_is_past_its_target(app, runner, smtp_server, admin_browser,
                                                                  make_ticket, moving_clock):
    from tests.admin.test_admin_desk import _digest_opt_in

    moving_clock.at(0)
    _, browser = admin_browser("ani@example.com", "Ani")
    _digest_opt_in(browser)
    moving_clock.at(1)
    number = make_ticket("198.51.100.1").ticket_number
    moving_clock.at(25 * 60)
    deliver(runner)
    [mail] = smtp_server.inbox.to("ani@example.com")
    assert mail["Subject"] == "Melewati target: tiket tertua menunggu 1 hari"
    lines = [line for line in text_body(mail).splitlines() if line.strip()]
    assert lines[1].startswith("Tiket tertua sudah menunggu 1 hari, melewati target 24 jam.")
    assert number in text_body(mail) and "melewati target 24 jam" in html_body(mail)
    moving_clock.at(30 * 60)
    deliver(runner)  # nothing new, and reminded less than the target ago
    assert len(smtp_server.inbox.to("ani@example.com")) == 1
    moving_clock.at(50 * 60)
    deliver(runner)
    reminder = smtp_server.inbox.to("ani@example.com")[-1]
    assert reminder["Subject"] == "Melewati target: tiket tertua menunggu 2 hari"
    assert "Tidak ada permohonan baru sejak e-mail terakhir." in text_body(reminder)
    with app.app_context():
        appeals.decide_ticket(number, "reject")
        db.session.commit()
    moving_clock.at(80 * 60)
    deliver(runner)  # past nothing any more: no reminder
    assert len(smtp_server.inbox.to("ani@example.com")) == 2


def test_the_migration_fills_in_the_first_answers_it_can(tmp_path):
    """Upgraded from the revision before it: a decided ticket's first answer is the earlier of its first
    administrator message and its decision; a pending ticket an administrator wrote to gets that message's time."""
    from flask_migrate import upgrade

    from tests.support.migration_files import revision_before

    migrated = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'before.db'}"})
    with migrated.app_context():
        upgrade(revision=revision_before("0034_desk"))
        rows = [(1, "TKT-00000001", "approved", "2026-11-20 08:00:00", "2026-11-20 10:00:00"),
                (2, "TKT-00000002", "rejected", "2026-11-20 08:00:00", "2026-11-20 09:00:00"),
                (3, "TKT-00000003", "pending", "2026-11-20 08:00:00", None),
                (4, "TKT-00000004", "pending", "2026-11-20 08:00:00", None)]
        with db.engine.begin() as conn:
            for row in rows:
                conn.execute(text("INSERT INTO unblock_tickets (id, ticket_number, status, created_at, resolved_at, "
                                  "device_issued) VALUES (:id, :number, :status, :created, :resolved, false)"),
                             dict(zip(("id", "number", "status", "created", "resolved"), row)))
            for ticket_id, kind, when in ((1, "note", "2026-11-20 08:10:00"), (1, "admin", "2026-11-20 08:30:00"),
                                          (1, "admin", "2026-11-20 09:00:00"), (2, "appellant", "2026-11-20 08:05:00"),
                                          (3, "admin", "2026-11-20 08:20:00")):
                conn.execute(text("INSERT INTO ticket_messages (ticket_id, author_kind, body, created_at) "
                                  "VALUES (:ticket, :kind, 'teks', :when)"),
                             {"ticket": ticket_id, "kind": kind, "when": when})
        upgrade()
        with db.engine.connect() as conn:
            found = dict(conn.execute(text("SELECT id, first_answered_at FROM unblock_tickets ORDER BY id")).all())
        db.engine.dispose()
    assert {key: value and str(value)[:19] for key, value in found.items()} == {
        1: "2026-11-20 08:30:00", 2: "2026-11-20 09:00:00", 3: "2026-11-20 08:20:00", 4: None}
