"""Administrator JSON doors: access, ticket queue, ticket detail, blocks, audit, host check."""
import json
import re

import pytest

from guardsvc import messages
from tests.support.blocks_helpers import FREE_IP, from_ip
from tests.support.pages_support import sign_in_session

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
ADMIN_ENDPOINTS = [
    ("GET", "/api/admin/tickets"),
    ("GET", "/api/admin/tickets/TKT-00000000"),
    ("GET", "/api/admin/blocks"),
    ("POST", "/api/admin/blocks"),
    ("POST", "/api/admin/blocks/BLK-00000000/lift"),
    ("GET", "/api/admin/audit"),
    ("POST", "/api/guard/unblock-tickets/TKT-00000000/respond"),
]


@pytest.fixture()
def admin(bearer):
    return bearer("admin")[1]


@pytest.mark.parametrize("method,path", ADMIN_ENDPOINTS)
def test_admin_endpoints_refuse_everyone_else(client, bearer, method, path):
    anonymous = client.open(path, method=method, json={})
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"].startswith("Bearer")
    for role in ("user", "service"):
        _, headers = bearer(role)
        response = client.open(path, method=method, json={}, headers=headers)
        assert response.status_code == 403, role
        assert response.get_json()["success"] is False


def test_admin_session_post_needs_csrf(client, make_user):
    token = sign_in_session(client, make_user(role="admin"))
    body = {"ip": "203.0.113.9"}
    assert client.post("/api/admin/blocks", json=body).status_code == 400
    response = client.post("/api/admin/blocks", json=body, headers={"X-CSRFToken": token})
    assert response.status_code == 201


def test_decisions_are_post_only(client, admin, make_block):
    ref = make_block(network="203.0.113.9")
    for method in ("GET", "DELETE", "PUT"):
        assert client.open(f"/api/admin/blocks/{ref}/lift", method=method, headers=admin).status_code == 405


def test_ticket_queue_filters_counts_and_paginates(client, admin, make_ticket):
    numbers = [make_ticket(f"198.51.100.{i}", name=f"Pemohon {i}", email=f"p{i}@example.com").ticket_number
               for i in range(1, 8)]
    client.post(f"/api/guard/unblock-tickets/{numbers[0]}/respond", json={"action": "reject"}, headers=admin)
    body = client.get("/api/admin/tickets?per_page=3&page=2", headers=admin).get_json()
    assert body["success"] is True
    assert body["pagination"] == {"page": 2, "per_page": 3, "total": 7, "pages": 3,
                                  "total_capped": False}
    assert [t["ticket_number"] for t in body["data"]] == list(reversed(numbers))[3:6]
    assert body["counts"] == {"pending": 6, "approved": 0, "rejected": 1}
    rejected = client.get("/api/admin/tickets?status=rejected", headers=admin).get_json()
    assert [t["ticket_number"] for t in rejected["data"]] == [numbers[0]]
    for q in ("pemohon 3", "P3@EXAMPLE", "198.51.100.3", numbers[2][-5:].lower()):
        found = client.get("/api/admin/tickets", query_string={"q": q}, headers=admin).get_json()
        assert [t["ticket_number"] for t in found["data"]] == [numbers[2]], q
    assert client.get("/api/admin/tickets?q=%25", headers=admin).get_json()["pagination"]["total"] == 0


@pytest.mark.parametrize("query,field", [
    ("per_page=101", "per_page"), ("page=0", "page"), ("page=x", "page"), ("status=open", "status"),
])
def test_ticket_queue_validates_query(client, admin, query, field):
    response = client.get(f"/api/admin/tickets?{query}", headers=admin)
    assert response.status_code == 422
    assert field in response.get_json()["errors"]


def test_ticket_detail_shows_everything_and_earlier_tickets(client, admin, make_block, make_ticket):
    ref = make_block(network="203.0.113.0/24", reason="Spam")
    first = make_ticket("203.0.113.5", device="dev-1").ticket_number
    client.post(f"/api/guard/unblock-tickets/{first}/respond", json={"action": "reject"}, headers=admin)
    second = make_ticket("198.51.100.99", device="dev-1", phone="0811", reason="Tolong dibuka.").ticket_number
    make_ticket("198.51.100.100")
    response = client.get(f"/api/admin/tickets/{second.lower()}", headers=admin)
    data = response.get_json()["data"]
    assert data["ticket_number"] == second and data["phone"] == "0811"
    assert data["reason"] == "Tolong dibuka." and data["device_id"] == "dev-1"
    assert data["block"] is None
    assert [t["ticket_number"] for t in data["earlier_tickets"]] == [first]
    earlier = client.get(f"/api/admin/tickets/{first}", headers=admin).get_json()["data"]
    assert earlier["block"]["reference"] == ref and earlier["block"]["reason"] == "Spam"
    assert earlier["resolved_by"].endswith("@example.com") and earlier["earlier_tickets"] == []
    assert client.get("/api/admin/tickets/TKT-FFFFFFFF", headers=admin).status_code == 404


def test_create_list_and_lift_blocks(client, admin):
    created = client.post("/api/admin/blocks", headers=admin, json={
        "ip": "2001:db8::/32", "reason": "Jaringan bot", "minutes": 60, "local_ip": "::ffff:10.0.0.1"})
    assert created.status_code == 201
    block = created.get_json()["data"]
    assert re.fullmatch(r"BLK-[0-9A-F]{8}", block["reference"])
    assert block["kind"] == "cidr" and block["target"] == "2001:db8::/32"
    assert block["local_ip"] == "10.0.0.1" and block["active"] is True
    assert TIMESTAMP.match(block["expires_at"]) and block["created_by"].endswith("@example.com")
    device = client.post("/api/admin/blocks", headers=admin, json={
        "device_id": "dev-7", "expires_at": "2999-01-01T00:00:00+07:00"}).get_json()["data"]
    assert device["kind"] == "device" and device["expires_at"] == "2998-12-31T17:00:00.000000Z"
    single = client.post("/api/admin/blocks", headers=admin, json={"ip": "203.0.113.9"}).get_json()["data"]
    assert single["kind"] == "ip" and single["target"] == "203.0.113.9" and single["expires_at"] is None

    lift = client.post(f"/api/admin/blocks/{single['reference'].lower()}/lift", headers=admin,
                       json={"reason": "Salah blokir"})
    assert lift.status_code == 200
    assert lift.get_json()["data"]["lift_reason"] == "Salah blokir"
    again = client.post(f"/api/admin/blocks/{single['reference']}/lift", headers=admin)
    assert again.status_code == 409 and again.get_json()["success"] is False
    assert client.post("/api/admin/blocks/BLK-00000000/lift", headers=admin).status_code == 404

    listing = client.get("/api/admin/blocks?per_page=2", headers=admin).get_json()
    assert listing["pagination"] == {"page": 1, "per_page": 2, "total": 3, "pages": 2, "total_capped": False}
    active = client.get("/api/admin/blocks?active=true", headers=admin).get_json()["data"]
    assert {b["reference"] for b in active} == {block["reference"], device["reference"]}
    inactive = client.get("/api/admin/blocks?active=false", headers=admin).get_json()["data"]
    assert [b["reference"] for b in inactive] == [single["reference"]]
    by_ip = client.get("/api/admin/blocks?q=2001:db8::1", headers=admin).get_json()["data"]
    assert [b["reference"] for b in by_ip] == [block["reference"]]


@pytest.mark.parametrize("body,field", [
    ({}, "ip"),
    ({"ip": "203.0.113.9", "device_id": "d"}, "ip"),
    ({"ip": "203.0.113.9/24"}, "ip"),
    ({"ip": "tidak"}, "ip"),
    ({"device_id": "bad id"}, "device_id"),
    ({"ip": "203.0.113.9", "local_ip": "x"}, "local_ip"),
    ({"ip": "203.0.113.9", "reason": "x" * 1001}, "reason"),
    ({"ip": "203.0.113.9", "minutes": 0}, "minutes"),
    ({"ip": "203.0.113.9", "minutes": 5, "expires_at": "2999-01-01T00:00:00Z"}, "minutes"),
    ({"ip": "203.0.113.9", "expires_at": "besok"}, "expires_at"),
    ({"ip": "203.0.113.9", "expires_at": "2000-01-01T00:00:00Z"}, "expires_at"),
])
def test_create_block_validation(client, admin, body, field):
    response = client.post("/api/admin/blocks", headers=admin, json=body)
    assert response.status_code == 422
    assert field in response.get_json()["errors"]


def test_audit_log_records_every_admin_action(client, bearer, runner, make_block, make_ticket):
    admin_user, admin = bearer("admin", email="boss@example.com")
    blocked = make_block(network="203.0.113.5")
    number = make_ticket("203.0.113.5").ticket_number
    client.post(f"/api/guard/unblock-tickets/{number}/respond", json={"action": "approve", "admin_notes": "Ok"},
                headers=admin, **from_ip(FREE_IP))
    created = client.post("/api/admin/blocks", headers=admin, json={"device_id": "dev-1"}).get_json()["data"]
    client.post(f"/api/admin/blocks/{created['reference']}/lift", headers=admin, json={"reason": "Uji"})
    other = make_ticket("198.51.100.50").ticket_number
    assert runner.invoke(args=["tickets", "decide", other, "--reject"]).exit_code == 0

    body = client.get("/api/admin/audit?per_page=10", headers=admin).get_json()
    events = body["data"]
    assert body["pagination"]["total"] == 5
    assert [(e["action"], e["target"]) for e in events] == [
        ("ticket.rejected", other), ("block.lifted", created["reference"]),
        ("block.created", created["reference"]), ("ticket.approved", number), ("block.created", blocked)]
    cli, lifted, made, approved, _ = events
    assert cli["actor"] == "cli" and cli["actor_id"] is None and cli["ip_address"] is None
    assert approved["actor"] == "boss@example.com" and approved["actor_id"] == admin_user.id
    assert approved["ip_address"] == FREE_IP
    assert approved["details"] == {"notes": "Ok", "lifted_blocks": [blocked], "allow_entries": []}
    # Entries name references, not the people behind an address or a device.
    assert lifted["details"]["reason"] == "Uji" and made["details"]["kind"] == "device"
    assert "dev-1" not in json.dumps(events)
    assert all(TIMESTAMP.match(e["created_at"]) for e in events)


def test_failed_decision_writes_no_audit_entry(client, admin, make_ticket):
    number = make_ticket("198.51.100.50").ticket_number
    url = f"/api/guard/unblock-tickets/{number}/respond"
    client.post(url, json={"action": "reject"}, headers=admin)
    assert client.post(url, json={"action": "approve"}, headers=admin).status_code == 409
    assert client.get("/api/admin/audit", headers=admin).get_json()["pagination"]["total"] == 1


def test_host_check_answers_blocked_and_free(client, bearer, make_block):
    ref = make_block(network="203.0.113.0/24", reason="Spam", minutes=10)
    _, service_headers = bearer("service")
    blocked = client.get("/api/guard/blocks/check?ip=203.0.113.200", headers=service_headers)
    assert blocked.status_code == 200
    data = blocked.get_json()["data"]
    assert data["blocked"] is True and data["reference"] == ref and data["reason"] == "Spam"
    assert TIMESTAMP.match(data["expires_at"])
    free = client.get("/api/guard/blocks/check?ip=198.51.100.1&device_id=dev-1&local_ip=10.0.0.1",
                      headers=service_headers).get_json()
    assert free == {"success": True, "data": {"blocked": False, "reference": None, "reason": None,
                                              "expires_at": None}}


def test_host_check_by_device_and_local_ip(client, bearer, make_block):
    ref = make_block(device_id="dev-1", local_ip="10.0.0.1")
    _, headers = bearer("admin")
    url = "/api/guard/blocks/check?device_id=dev-1"
    assert client.get(url, headers=headers).get_json()["data"]["blocked"] is False
    assert client.get(url + "&local_ip=10.0.0.1", headers=headers).get_json()["data"]["reference"] == ref


def test_host_check_access_and_validation(client, bearer):
    url = "/api/guard/blocks/check?ip=203.0.113.1"
    assert client.get(url).status_code == 401
    assert client.get(url, headers=bearer("user")[1]).status_code == 403
    _, headers = bearer("service")
    for query, field in (("", "ip"), ("ip=x", "ip"), ("ip=1.2.3.4&device_id=a%20b", "device_id"),
                         ("ip=1.2.3.4&local_ip=z", "local_ip")):
        response = client.get(f"/api/guard/blocks/check?{query}", headers=headers)
        assert response.status_code == 422, query
        assert field in response.get_json()["errors"], query


@pytest.mark.parametrize("path", ["/api/admin/blocks?page=1&page=2", "/api/admin/tickets?per_page=5&per_page=50",
                                  "/api/admin/audit?q=a&q=b"])
def test_a_parameter_given_twice_is_refused_not_half_read(client, admin, path):
    """One value a parameter, as the document says: the second is not quietly ignored."""
    name = path.partition("?")[2].partition("=")[0]
    answer = client.get(path, headers=admin)
    assert answer.status_code == 422 and answer.get_json()["errors"] == {name: [messages.FIELD_GIVEN_TWICE]}
    assert client.get(path.partition("&")[0], headers=admin).status_code == 200


def test_a_parameter_the_document_does_not_declare_is_ignored_however_often(client, admin):
    assert client.get("/api/admin/blocks?page=1&extra=a&extra=b", headers=admin).status_code == 200
    answer = client.get("/api/guard/blocks/check?ip=1.2.3.4&%20=null&%20=null", headers=admin)
    assert answer.status_code == 200, answer.get_json()
