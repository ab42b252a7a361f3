"""Approvals lift only the blocks that target the appellant exactly; a range stays, the appellant is allowed."""
from datetime import datetime, timedelta

import pytest

from guardsvc.appeals import service as appeals
from guardsvc.appeals.approval import preview_approval
from guardsvc.blocks.models import AllowEntry
from guardsvc.blocks.service import get_block
from guardsvc.extensions import db
from guardsvc.storage import clock
from tests.support.blocks_helpers import from_ip
from tests.support.factories import submit_ticket
from tests.support.pages_support import post_form, sign_in_session, text_of

APPELLANT_IP = "127.0.6.10"
NEIGHBOUR_IP = "127.0.6.11"
RANGE = "127.0.6.0/24"
GUARDED = "/api/auth/tokens"  # 403 when blocked, 401 for a client that may pass


def respond(client, headers, number, **body):
    return client.post(f"/api/guard/unblock-tickets/{number}/respond", json={"action": "approve", **body},
                       headers=headers)


def guarded_status(client, ip, device=None):
    headers = {"X-Device-Id": device} if device else {}
    return client.get(GUARDED, headers=headers, **from_ip(ip)).status_code


def active_allow_targets():
    return sorted(entry.target for entry in db.session.query(AllowEntry).filter(AllowEntry.removed_at.is_(None)))


def test_range_stays_and_the_appellant_alone_is_let_through(client, bearer, make_block, app):
    reference = make_block(network=RANGE, reason="Jaringan kampus")
    assert guarded_status(client, APPELLANT_IP) == 403
    number = submit_ticket(client, ip=APPELLANT_IP).get_json()["ticket_number"]
    _, admin = bearer("admin")
    answer = respond(client, admin, number)
    assert answer.status_code == 200
    data = answer.get_json()["data"]
    assert data["lifted_blocks"] == []
    assert [entry["target"] for entry in data["allow_entries"]] == [APPELLANT_IP]
    with app.app_context():
        assert get_block(reference).lifted_at is None
        assert active_allow_targets() == [f"{APPELLANT_IP}/32"]
    assert guarded_status(client, APPELLANT_IP) == 401
    assert guarded_status(client, NEIGHBOUR_IP) == 403


def test_the_address_and_the_device_are_allowed_together_for_thirty_days(client, bearer, make_block, app,
                                                                         monkeypatch):
    make_block(network=RANGE)
    number = submit_ticket(client, ip=APPELLANT_IP, device="laptop-budi").get_json()["ticket_number"]
    _, admin = bearer("admin")
    data = respond(client, admin, number).get_json()["data"]
    [entry] = data["allow_entries"]
    assert (entry["target"], entry["device_id"]) == (APPELLANT_IP, "laptop-budi")
    assert guarded_status(client, APPELLANT_IP, device="laptop-budi") == 401
    assert guarded_status(client, APPELLANT_IP) == 403  # the same address without that device
    assert guarded_status(client, NEIGHBOUR_IP, device="laptop-budi") == 403  # that device elsewhere
    assert guarded_status(client, NEIGHBOUR_IP) == 403
    start = clock.utcnow()
    ends = datetime.strptime(entry["expires_at"], "%Y-%m-%dT%H:%M:%S.%fZ")
    assert timedelta(days=29, hours=23) < ends - start <= timedelta(days=30)
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=30, minutes=1))
    assert guarded_status(client, APPELLANT_IP, device="laptop-budi") == 403


def test_a_block_made_after_the_approval_wins_over_its_allow_entry(client, bearer, make_block, app,
                                                                    monkeypatch):
    make_block(network=RANGE)
    number = submit_ticket(client, ip=APPELLANT_IP, device="laptop-budi").get_json()["ticket_number"]
    _, admin = bearer("admin")
    respond(client, admin, number)
    assert guarded_status(client, APPELLANT_IP, device="laptop-budi") == 401
    later = clock.utcnow() + timedelta(seconds=1)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    make_block(device_id="laptop-budi", reason="Spam lagi")  # new abuse, after the approval
    assert guarded_status(client, APPELLANT_IP, device="laptop-budi") == 403
    query = {"ip": APPELLANT_IP, "device_id": "laptop-budi"}
    assert client.get("/api/guard/blocks/check", query_string=query, headers=admin).get_json()["data"]["blocked"]


def test_an_administrators_allow_entry_still_outranks_later_blocks(client, bearer, make_block, app,
                                                                    monkeypatch):
    from guardsvc.blocks.allows import add_allow_entry

    with app.app_context():
        add_allow_entry(network=APPELLANT_IP)
        db.session.commit()
    later = clock.utcnow() + timedelta(seconds=1)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    make_block(network=RANGE)
    assert guarded_status(client, APPELLANT_IP) == 401


def test_exact_address_and_device_blocks_are_lifted(client, bearer, make_block, app):
    single = make_block(network=APPELLANT_IP)
    device = make_block(device_id="laptop-budi", local_ip="192.168.1.5")
    other = make_block(device_id="laptop-lain")
    number = submit_ticket(client, ip=APPELLANT_IP, device="laptop-budi").get_json()["ticket_number"]
    _, admin = bearer("admin")
    data = respond(client, admin, number).get_json()["data"]
    assert sorted(data["lifted_blocks"]) == sorted([single, device]) and data["allow_entries"] == []
    with app.app_context():
        assert get_block(other).lifted_at is None and active_allow_targets() == []
    assert guarded_status(client, APPELLANT_IP, device="laptop-budi") == 401


def test_lift_ranges_lifts_the_range_and_adds_no_allow_entry(client, bearer, make_block, app):
    reference = make_block(network=RANGE)
    number = submit_ticket(client, ip=APPELLANT_IP).get_json()["ticket_number"]
    _, admin = bearer("admin")
    data = respond(client, admin, number, lift_ranges=True).get_json()["data"]
    assert data["lifted_blocks"] == [reference] and data["allow_entries"] == []
    assert guarded_status(client, NEIGHBOUR_IP) == 401


def test_lift_ranges_must_be_a_boolean(client, bearer):
    number = submit_ticket(client, ip=APPELLANT_IP).get_json()["ticket_number"]
    _, admin = bearer("admin")
    answer = respond(client, admin, number, lift_ranges="maybe")
    assert answer.status_code == 422 and "lift_ranges" in answer.get_json()["errors"]


def test_an_already_allowed_client_gets_no_second_entry(client, bearer, make_block, app):
    from guardsvc.blocks.allows import add_allow_entry

    make_block(network=RANGE)
    with app.app_context():
        add_allow_entry(network="127.0.6.0/28")
        db.session.commit()
    number = submit_ticket(client, ip=APPELLANT_IP).get_json()["ticket_number"]
    _, admin = bearer("admin")
    assert respond(client, admin, number).get_json()["data"]["allow_entries"] == []


@pytest.mark.parametrize("lift_ranges", [False, True, ["blk-placeholder"]])
def test_preview_is_what_the_decision_does(ctx, make_block, make_ticket, lift_ranges):
    wide = make_block(network=RANGE)
    make_block(network="127.0.0.0/8")
    make_block(network=APPELLANT_IP)
    make_block(device_id="laptop-budi")
    make_block(network="127.0.7.0/24")  # covers someone else
    if isinstance(lift_ranges, list):
        lift_ranges = [wide.lower()]
    ticket = make_ticket(APPELLANT_IP, device="laptop-budi")
    ticket = db.session.merge(ticket)
    plan = preview_approval(ticket, lift_ranges)
    expected = (sorted(block.reference for block in plan.to_lift), plan.allow and plan.allow["network"])
    assert active_allow_targets() == [] and all(block.lifted_at is None for block in plan.to_lift)
    decision = appeals.decide_ticket(ticket.ticket_number, "approve", lift_ranges=lift_ranges)
    done = (sorted(block.reference for block in decision.lifted_blocks),
            decision.allow_entries[0].network if decision.allow_entries else None)
    assert done == expected
    assert decision.ticket.access_opened is True


def test_approval_with_nothing_to_open_says_so(client, bearer, app):
    number = submit_ticket(client, ip=APPELLANT_IP).get_json()["ticket_number"]
    _, admin = bearer("admin")
    answer = respond(client, admin, number)
    assert answer.get_json()["message"] == f"Tiket {number} disetujui; tidak ada blokir yang perlu dibuka."
    data = answer.get_json()["data"]
    assert data["lifted_blocks"] == [] and data["allow_entries"] == []
    page = client.get(f"/banding/cek?tiket={number}").get_data(as_text=True)
    assert "tidak ada yang perlu dibuka" in page and "telah dibuka" not in page
    check = client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]
    assert set(check) == {"ticket_number", "status", "created_at", "resolved_at", "admin_notes"}


def test_the_approve_button_promises_nothing_when_nothing_blocks_the_appellant(client, make_user, make_ticket):
    sign_in_session(client, make_user(role="admin"))
    html = text_of(client.get(f"/admin/tiket/{make_ticket(APPELLANT_IP).ticket_number}"))
    assert "Persetujuan tidak akan membuka blokir apa pun." in html
    assert ">Setujui</button>" in html and "buka blokir</button>" not in html


def test_status_page_says_opened_when_a_block_was_lifted(client, bearer, make_block):
    make_block(network=APPELLANT_IP)
    number = submit_ticket(client, ip=APPELLANT_IP).get_json()["ticket_number"]
    _, admin = bearer("admin")
    respond(client, admin, number)
    assert "blokir yang sesuai telah dibuka" in client.get(f"/banding/cek?tiket={number}").get_data(as_text=True)


def test_decision_page_lists_what_approval_will_do(client, make_user, make_block, make_ticket):
    sign_in_session(client, make_user(role="admin"))
    wide = make_block(network=RANGE)
    single = make_block(network=APPELLANT_IP)
    number = make_ticket(APPELLANT_IP, device="laptop-budi").ticket_number
    html = text_of(client.get(f"/admin/tiket/{number}"))
    assert single in html and f'name="lift_range" value="{wide}"' in html
    assert "laptop-budi</span> (keduanya harus cocok)" in html
    assert ">Setujui dan buka blokir</button>" in html
    post_form(client, f"/admin/tiket/{number}/putuskan", {"action": "approve"}, page=f"/admin/tiket/{number}")
    assert "Persetujuan ini membuka akses pemohon" in text_of(client.get(f"/admin/tiket/{number}"))
