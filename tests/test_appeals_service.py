"""Service-level rules of tickets, without HTTP."""
import pytest

from guardsvc import codes
from guardsvc.appeals import service
from guardsvc.errors import Cooldown, InvalidState, NotFound
from guardsvc.extensions import db
from guardsvc.identity import Client


def client(ip="198.51.100.7", device=None):
    return Client(ip_address=ip, device_id=device, local_ip=None, user_agent="pytest")


def submit(who):
    ticket = service.submit_ticket(who, name="Ani", email="ani@example.com", reason="Mohon dibuka.")
    db.session.commit()
    return ticket


def test_ticket_number_collision_is_retried(ctx, monkeypatch):
    first = submit(client("198.51.100.1"))
    numbers = iter([first.ticket_number, first.ticket_number, "TKT-ABCDEF01"])
    monkeypatch.setattr(codes, "new_code", lambda prefix: next(numbers))
    second = submit(client("198.51.100.2"))
    assert second.ticket_number == "TKT-ABCDEF01"


def test_cooldown_names_the_pending_ticket(ctx):
    first = submit(client(device="d1"))
    with pytest.raises(Cooldown) as caught:
        submit(client(ip="203.0.113.1", device="d1"))
    assert caught.value.ticket_number == first.ticket_number


def test_submission_records_the_active_block(ctx):
    from guardsvc.blocks.service import create_block

    block = create_block(network="198.51.100.0/24", reason="spam")
    db.session.commit()
    ticket = submit(client())
    assert ticket.block_id == block.id
    assert submit(client("203.0.113.5")).block_id is None


def test_decide_unknown_and_twice(ctx):
    with pytest.raises(NotFound):
        service.decide_ticket("TKT-00000000", "approve")
    ticket = submit(client())
    service.decide_ticket(ticket.ticket_number, "approve")
    db.session.commit()
    assert ticket.resolved_at is not None and ticket.admin_notes == "Permohonan disetujui."
    with pytest.raises(InvalidState):
        service.decide_ticket(ticket.ticket_number, "reject")


def test_counts_by_status(ctx):
    a = submit(client("198.51.100.1"))
    submit(client("198.51.100.2"))
    service.decide_ticket(a.ticket_number, "reject")
    db.session.commit()
    assert service.count_by_status() == {"pending": 1, "approved": 0, "rejected": 1}
