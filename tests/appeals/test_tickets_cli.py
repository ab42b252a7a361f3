"""``flask tickets list`` and ``flask tickets decide``."""
import json


def test_list_and_filter_by_status(runner, make_ticket):
    first = make_ticket("198.51.100.1").ticket_number
    second = make_ticket("198.51.100.2").ticket_number
    assert runner.invoke(args=["tickets", "decide", first, "--reject"]).exit_code == 0
    everything = runner.invoke(args=["tickets", "list"]).output
    assert first in everything and second in everything
    pending = runner.invoke(args=["tickets", "list", "--status", "pending"]).output
    assert second in pending and first not in pending
    assert runner.invoke(args=["tickets", "list", "--status", "bogus"]).exit_code != 0


def test_list_has_a_header_and_json(runner, make_ticket):
    number = make_ticket("198.51.100.7").ticket_number
    header, first = runner.invoke(args=["tickets", "list"]).output.splitlines()[:2]
    assert header.split("\t")[:3] == ["ticket_number", "status", "created_at"]
    assert first.startswith(f"{number}\tpending\t")
    listed = json.loads(runner.invoke(args=["tickets", "list", "--json"]).output)
    assert listed[0]["ticket_number"] == number and listed[0]["ip_address"] == "198.51.100.7"
    assert listed[0]["resolved_at"] is None
    assert json.loads(runner.invoke(args=["tickets", "list", "--json", "--status", "approved"]).output) == []


def test_decide_approve_with_notes_lifts_blocks(client, runner, make_block, make_ticket, app):
    reference = make_block(network="198.51.100.0/24")
    number = make_ticket("198.51.100.1").ticket_number
    result = runner.invoke(args=["tickets", "decide", number.lower(), "--approve", "--notes", "Sudah dibuka.",
                                 "--lift-ranges"])
    assert result.exit_code == 0, result.output
    assert f"lifted {reference} (198.51.100.0/24)" in result.output and "allowed" not in result.output
    status = client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]
    assert (status["status"], status["admin_notes"]) == ("approved", "Sudah dibuka.")
    with app.app_context():
        from guardsvc.blocks.service import get_block

        assert get_block(reference).lifted_at is not None


def test_decide_approve_keeps_a_range_and_allows_the_client(runner, make_block, make_ticket):
    reference = make_block(network="198.51.100.0/24")
    number = make_ticket("198.51.100.1").ticket_number
    result = runner.invoke(args=["tickets", "decide", number, "--approve"])
    assert result.exit_code == 0, result.output
    assert reference not in result.output and "allowed 198.51.100.1/32" in result.output


def test_decide_refuses_non_pending_unknown_and_missing_action(client, runner, make_ticket):
    number = make_ticket("198.51.100.1").ticket_number
    assert runner.invoke(args=["tickets", "decide", number, "--approve"]).exit_code == 0
    again = runner.invoke(args=["tickets", "decide", number, "--reject"])
    assert again.exit_code != 0
    assert "sudah diputuskan" in again.output
    assert client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]["status"] == "approved"
    assert runner.invoke(args=["tickets", "decide", "TKT-00000000", "--reject"]).exit_code != 0
    assert runner.invoke(args=["tickets", "decide", number]).exit_code != 0
