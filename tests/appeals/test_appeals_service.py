"""Service-level rules of tickets, without HTTP."""
import pytest

from guardsvc.storage import codes
from guardsvc.appeals import service
from guardsvc.web.errors import Cooldown, InvalidState, NotFound
from guardsvc.extensions import db


def test_ticket_number_collision_is_retried(ctx, make_ticket, monkeypatch):
    first = make_ticket("198.51.100.1")
    numbers = iter([first.ticket_number, first.ticket_number, "TKT-ABCDEF01"])
    monkeypatch.setattr(codes, "new_code", lambda prefix: next(numbers))
    second = make_ticket("198.51.100.2")
    assert second.ticket_number == "TKT-ABCDEF01"


def test_cooldown_names_the_pending_ticket(ctx, make_ticket):
    first = make_ticket(device="d1")
    with pytest.raises(Cooldown) as caught:
        make_ticket(first.ip_address, device="d1")
    assert caught.value.ticket_number == first.ticket_number
    with pytest.raises(Cooldown) as elsewhere:  # the device id alone, from another address
        make_ticket("203.0.113.1", device="d1")
    assert elsewhere.value.ticket_number is None


def test_submission_records_the_active_block(ctx, make_ticket):
    from guardsvc.blocks.service import create_block

    block = create_block(network="198.51.100.0/24", reason="spam")
    db.session.commit()
    ticket = make_ticket()
    assert ticket.block_id == block.id
    assert make_ticket("203.0.113.5").block_id is None


def test_decide_unknown_and_twice(ctx, make_ticket):
    with pytest.raises(NotFound):
        service.decide_ticket("TKT-00000000", "approve")
    ticket = service.decide_ticket(make_ticket().ticket_number, "approve")
    db.session.commit()
    assert ticket.resolved_at is not None and ticket.admin_notes == "Permohonan disetujui."
    with pytest.raises(InvalidState):
        service.decide_ticket(ticket.ticket_number, "reject")


def test_counts_by_status(ctx, make_ticket):
    a = make_ticket("198.51.100.1")
    make_ticket("198.51.100.2")
    service.decide_ticket(a.ticket_number, "reject")
    db.session.commit()
    assert service.count_by_status() == {"pending": 1, "approved": 0, "rejected": 1}
