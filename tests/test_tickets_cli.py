"""``flask tickets list`` and ``flask tickets decide``."""
from tests.factories import submit_body


def submit(client, ip):
    return client.post("/api/guard/unblock-tickets/submit", json=submit_body(),
                       environ_base={"REMOTE_ADDR": ip}).get_json()["ticket_number"]


def test_list_and_filter_by_status(client, runner):
    first = submit(client, "198.51.100.1")
    second = submit(client, "198.51.100.2")
    assert runner.invoke(args=["tickets", "decide", first, "--reject"]).exit_code == 0
    everything = runner.invoke(args=["tickets", "list"]).output
    assert first in everything and second in everything
    pending = runner.invoke(args=["tickets", "list", "--status", "pending"]).output
    assert second in pending and first not in pending
    assert runner.invoke(args=["tickets", "list", "--status", "bogus"]).exit_code != 0


def test_decide_approve_with_notes_lifts_blocks(client, runner, make_block, app):
    reference = make_block(network="198.51.100.0/24")
    number = submit(client, "198.51.100.1")
    result = runner.invoke(args=["tickets", "decide", number.lower(), "--approve", "--notes", "Sudah dibuka."])
    assert result.exit_code == 0, result.output
    status = client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]
    assert (status["status"], status["admin_notes"]) == ("approved", "Sudah dibuka.")
    with app.app_context():
        from guardsvc.blocks.service import get_block

        assert get_block(reference).lifted_at is not None


def test_decide_refuses_non_pending_unknown_and_missing_action(client, runner):
    number = submit(client, "198.51.100.1")
    assert runner.invoke(args=["tickets", "decide", number, "--approve"]).exit_code == 0
    again = runner.invoke(args=["tickets", "decide", number, "--reject"])
    assert again.exit_code != 0
    assert "sudah diputuskan" in again.output
    assert client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]["status"] == "approved"
    assert runner.invoke(args=["tickets", "decide", "TKT-00000000", "--reject"]).exit_code != 0
    assert runner.invoke(args=["tickets", "decide", number]).exit_code != 0
