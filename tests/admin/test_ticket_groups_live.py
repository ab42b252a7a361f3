"""A wave decided over HTTP against gunicorn as shipped: real concurrency, real e-mail (contract section 18).

Two administrators deciding one group at once, while others decide some of its tickets one by one, never
decide a ticket twice, and the answers add up. A group decided over HTTP sends every appellant exactly one
e-mail, in the language they wrote in, through the outbox to a real SMTP server.
"""
import collections

import pytest
import requests
from sqlalchemy import func, select

from guardsvc.appeals import service as appeals
from guardsvc.appeals.models import UnblockTicket
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.web.identity import Client
from tests.support.conversation_support import deliver
from tests.support.factories import submit_body
from tests.support.live import LiveServer, all_at_once
from tests.support.smtp import smtp_server, text_body  # noqa: F401

pytestmark = pytest.mark.live
RANGE = "198.51.100.0/24"


@pytest.fixture(scope="module")
def proxied_server(app):
    """Three workers behind one declared proxy: each appellant its own forwarded address."""
    server = LiveServer(workers=3, env={"GUARDSVC_PROXY_COUNT": "1"})
    yield server
    server.stop()


def test_two_administrators_deciding_one_group_at_once_decide_each_ticket_once(app, proxied_server, bearer,
                                                                                make_block):
    reference = make_block(network=RANGE, reason="Daftar komunitas")
    with app.app_context():
        numbers = []
        for number in range(1, 41):
            ticket = appeals.submit_ticket(Client(f"198.51.100.{number}", f"hp-{number}", None, "pytest"),
                                           **submit_body(email=f"p{number}@example.com"))
            numbers.append(ticket.ticket_number)
        db.session.commit()
    admins = [bearer("admin")[1], bearer("admin")[1]]
    alone = numbers[::8]  # five tickets someone decides one by one at the same moment

    def act(i):
        if i < 6:  # three requests from each administrator for the whole group
            answer = requests.post(f"{proxied_server.url}/api/admin/ticket-groups/{reference}/decide", timeout=60,
                                   json={"decision": "approved"}, headers=admins[i % 2])
        else:
            answer = requests.post(f"{proxied_server.url}/api/guard/unblock-tickets/{alone[i - 6]}/respond",
                                   timeout=60, json={"action": "reject"}, headers=admins[i % 2])
        return answer.status_code, answer.json()

    answers = all_at_once(6 + len(alone), act)
    group_answers, single_answers = answers[:6], answers[6:]
    won = [body for status, body in group_answers if status == 200]
    assert len(won) == 1, group_answers
    assert all(status == 409 and body["decided"] == 0 for status, body in group_answers if status != 200)
    singles_won = sum(1 for status, _ in single_answers if status == 200)
    assert all(status in (200, 409) for status, _ in single_answers)
    assert won[0]["data"]["decided"] + singles_won == 40
    with app.app_context():
        statuses = collections.Counter(db.session.scalars(select(UnblockTicket.status)))
        assert statuses == collections.Counter(approved=won[0]["data"]["decided"], rejected=singles_won)
        audited = collections.Counter(db.session.scalars(select(AuditEvent.target).where(
            AuditEvent.action.in_(("ticket.approved", "ticket.rejected")))))
        assert sorted(audited) == sorted(numbers) and set(audited.values()) == {1}
        mailed = collections.Counter(db.session.scalars(select(OutboxMessage.recipient).where(
            OutboxMessage.kind == "appeal_decision")))
        assert len(mailed) == 40 and set(mailed.values()) == {1}
        assert db.session.scalar(select(func.count()).select_from(AuditEvent).where(
            AuditEvent.action == "tickets.group_decided")) == 1
    again = requests.post(f"{proxied_server.url}/api/admin/ticket-groups/{reference}/decide", timeout=60,
                          json={"decision": "rejected"}, headers=admins[0])
    assert again.status_code == 409 and again.json()["decided"] == 0


def test_a_group_decided_over_http_mails_each_appellant_once_in_their_language(  # noqa: F811 (smtp_server)
        app, proxied_server, bearer, make_block, runner, smtp_server):
    reference = make_block(network=RANGE, reason="Daftar komunitas")
    languages = {}
    for number in range(1, 13):
        language = "en" if number % 3 == 0 else "id"
        email = f"warga{number}@example.com"
        submitted = requests.post(f"{proxied_server.url}/api/guard/unblock-tickets/submit", timeout=30,
                                  json=submit_body(email=email),
                                  headers={"X-Forwarded-For": f"198.51.100.{number}", "X-Device-Id": f"hp-{number}",
                                           "Accept-Language": language})
        assert submitted.status_code == 201, submitted.text
        languages[email] = (language, submitted.json()["ticket_number"])
    _, admin = bearer("admin")
    answer = requests.post(f"{proxied_server.url}/api/admin/ticket-groups/{reference}/decide", timeout=60,
                           json={"decision": "approved"}, headers={**admin, "X-Forwarded-For": "192.0.2.1"})
    assert answer.status_code == 200 and answer.json()["data"]["decided"] == 12
    assert answer.json()["data"]["allow_entries"] == 12
    deliver(runner)
    deliver(runner)  # a second round sends nothing again
    for email, (language, number) in languages.items():
        decisions = [mail for mail in smtp_server.inbox.to(email) if number in mail["Subject"]
                     and not mail["Subject"].startswith(("Permohonan", "Appeal"))]
        assert len(decisions) == 1, (email, [mail["Subject"] for mail in smtp_server.inbox.to(email)])
        [mail] = decisions
        if language == "en":
            assert mail["Subject"] == f"Decision on appeal {number}: approved"
            assert "Appeal approved." in text_body(mail)
        else:
            assert mail["Subject"] == f"Keputusan banding {number}: disetujui"
            assert "Permohonan disetujui." in text_body(mail)
    # Each appellant's address is now let through; a stranger in the range is not.
    check = requests.get(f"{proxied_server.url}/api/guard/blocks/check", timeout=30, headers=admin,
                         params={"ip": "198.51.100.3", "device_id": "hp-3"})
    assert check.json()["data"]["blocked"] is False
    stranger = requests.get(f"{proxied_server.url}/api/guard/blocks/check", timeout=30, headers=admin,
                            params={"ip": "198.51.100.3", "device_id": "someone-else"})
    assert stranger.json()["data"]["blocked"] is True
