"""Allow entries outrank blocks: guard, host check, forward auth; managed by API and CLI."""
import json
from datetime import timedelta

import pytest

from guardsvc.storage import clock
from guardsvc.extensions import db
from tests.support.blocks_helpers import BLOCKED_IP, FREE_IP, from_ip

# What the proxy sends as X-Guardsvc-Secret to the apps these tests build (at least 32 characters).
PROXIED_SECRET = "rahasia-proksi-yang-panjang-0123456789"


def test_an_allowed_ip_inside_a_blocked_range_is_not_blocked(client, make_block, make_allow):
    make_block(network="203.0.113.0/24")
    make_allow(network=BLOCKED_IP, reason="Kantor mitra")
    assert client.get("/api/auth/tokens", **from_ip(BLOCKED_IP)).status_code == 401
    assert client.get("/api/auth/tokens", **from_ip("203.0.113.8")).status_code == 403


def test_an_allowed_range_and_device_outrank_ip_and_device_blocks(client, make_block, make_allow):
    make_block(network=BLOCKED_IP)
    make_block(device_id="dev-1")
    make_allow(network="203.0.0.0/16")
    assert client.get("/", **from_ip(BLOCKED_IP)).status_code == 200
    make_allow(device_id="dev-1")
    assert client.get("/", headers={"X-Device-Id": "dev-1"}, **from_ip(FREE_IP)).status_code == 200


def test_removed_and_expired_entries_no_longer_count(client, app, make_block, make_allow):
    from guardsvc.blocks.allows import remove_allow_entry

    make_block(network=BLOCKED_IP)
    entry = make_allow(network=BLOCKED_IP, minutes=5)
    assert client.get("/", **from_ip(BLOCKED_IP)).status_code == 200
    with app.app_context():
        remove_allow_entry(entry)
        db.session.commit()
    assert client.get("/", **from_ip(BLOCKED_IP)).status_code == 403
    with app.app_context():
        from guardsvc.blocks.models import AllowEntry

        db.session.add(AllowEntry(network=f"{BLOCKED_IP}/32", created_at=clock.utcnow() - timedelta(hours=2),
                                  expires_at=clock.utcnow() - timedelta(hours=1)))
        db.session.commit()
    assert client.get("/", **from_ip(BLOCKED_IP)).status_code == 403


def test_host_check_honours_allow_entries(client, bearer, make_block, make_allow):
    _, headers = bearer("service")
    make_block(network="203.0.113.0/24")
    make_allow(network=BLOCKED_IP)
    answer = client.get(f"/api/guard/blocks/check?ip={BLOCKED_IP}", headers=headers).get_json()
    assert answer["data"]["blocked"] is False
    answer = client.get("/api/guard/blocks/check?ip=203.0.113.9", headers=headers).get_json()
    assert answer["data"]["blocked"] is True


def test_forward_auth_honours_allow_entries(app, make_block, make_allow):
    from guardsvc import create_app

    client = create_app({"TESTING": True, "FORWARD_AUTH_SECRET": PROXIED_SECRET}).test_client()
    make_block(network="203.0.113.0/24")

    def ask():
        return client.get("/api/guard/forward-auth", headers={"X-Guardsvc-Secret": PROXIED_SECRET},
                          **from_ip(BLOCKED_IP)).status_code
    assert ask() == 403
    make_allow(network=BLOCKED_IP)
    assert ask() == 204


def test_admin_api_creates_lists_and_removes_with_audit(client, bearer):
    _, headers = bearer("admin")
    created = client.post("/api/admin/allows", json={"ip": "10.0.0.0/8", "reason": "VPN", "minutes": 60},
                          headers=headers)
    assert created.status_code == 201
    entry = created.get_json()["data"]
    assert (entry["kind"], entry["target"], entry["active"], entry["reason"]) == ("cidr", "10.0.0.0/8", True, "VPN")
    listed = client.get("/api/admin/allows?q=10.1.2.3", headers=headers).get_json()
    assert [e["id"] for e in listed["data"]] == [entry["id"]] and listed["pagination"]["total"] == 1
    removed = client.post(f"/api/admin/allows/{entry['id']}/remove", headers=headers)
    assert removed.status_code == 200 and removed.get_json()["data"]["state"] == "removed"
    assert client.post(f"/api/admin/allows/{entry['id']}/remove", headers=headers).status_code == 409
    assert client.post("/api/admin/allows/999999/remove", headers=headers).status_code == 404
    audit = client.get("/api/admin/audit", headers=headers).get_json()["data"]
    assert [e["action"] for e in audit if e["target"] == f"allow-{entry['id']}"] == ["allow.removed", "allow.created"]


@pytest.mark.parametrize("body", [{}, {"ip": "10.0.0.1", "device_id": "d"}, {"ip": "10.0.0.1/8"},
                                  {"ip": "10.0.0.1", "local_ip": "10.0.0.2"}, {"device_id": "bad id"}])
def test_admin_api_refuses_bad_entries(client, bearer, body):
    _, headers = bearer("admin")
    assert client.post("/api/admin/allows", json=body, headers=headers).status_code == 422


def test_admin_api_is_for_administrators_only(client, bearer):
    _, headers = bearer("service")
    assert client.get("/api/admin/allows", headers=headers).status_code == 403
    assert client.post("/api/admin/allows", json={"ip": "10.0.0.1"}).status_code == 401


def test_cli_add_list_remove(runner, make_block, client):
    make_block(network=BLOCKED_IP)
    result = runner.invoke(args=["allows", "add", "--ip", BLOCKED_IP, "--reason", "Mitra", "--minutes", "30"])
    assert result.exit_code == 0, result.output
    entry_id = result.output.strip().splitlines()[-1]
    assert client.get("/", **from_ip(BLOCKED_IP)).status_code == 200
    listed = runner.invoke(args=["allows", "list"])
    assert listed.output.startswith("id\tstate\ttarget\t")
    assert f"{entry_id}\tactive\t{BLOCKED_IP}/32" in listed.output
    entry, = json.loads(runner.invoke(args=["allows", "list", "--json"]).output)
    assert (str(entry["id"]), entry["reason"], entry["expires_at"].endswith("Z")) == (entry_id, "Mitra", True)
    assert runner.invoke(args=["allows", "remove", entry_id]).exit_code == 0
    assert client.get("/", **from_ip(BLOCKED_IP)).status_code == 403
    again = runner.invoke(args=["allows", "remove", entry_id])
    assert again.exit_code != 0 and "tidak aktif" in again.output
    assert "no allow entries" in runner.invoke(args=["allows", "list"]).output
    assert "removed" in runner.invoke(args=["allows", "list", "--all"]).output


def test_cli_refuses_two_targets(runner):
    result = runner.invoke(args=["allows", "add", "--ip", "10.0.0.1", "--device-id", "d"])
    assert result.exit_code != 0 and "Traceback" not in result.output


def test_approval_still_sees_blocks_of_an_allowed_client(app, make_block, make_allow):
    from guardsvc.blocks.service import blocks_on_client

    make_block(network=BLOCKED_IP)
    make_allow(network=BLOCKED_IP)
    with app.app_context():
        assert len(blocks_on_client(BLOCKED_IP, None)) == 1
        db.session.rollback()
