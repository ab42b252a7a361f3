"""Functional tests of the public ticket endpoints and the admin decision."""
import re

import pytest

from tests.support.factories import SUBMIT, submit_ticket

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def test_submit_creates_pending_ticket_with_exact_fields(client):
    response = submit_ticket(client)
    assert response.status_code == 201
    body = response.get_json()
    assert body["success"] is True
    assert body["message"] == "Permohonan pembukaan blokir berhasil diajukan."
    assert re.fullmatch(r"TKT-[0-9A-F]{8}", body["ticket_number"])
    data = body["data"]
    assert set(data) == {"id", "ticket_number", "ip_address", "name", "email", "status", "created_at"}
    assert data["ticket_number"] == body["ticket_number"]
    assert data["status"] == "pending"
    assert data["ip_address"] == "198.51.100.7"
    assert data["name"] == "Budi Santoso"
    assert TIMESTAMP.match(data["created_at"])


def test_second_submission_from_same_ip_gets_cooldown_with_existing_number(client):
    first = submit_ticket(client).get_json()["ticket_number"]
    response = submit_ticket(client)
    assert response.status_code == 429
    body = response.get_json()
    assert body == {"success": False, "ticket_number": first, "message":
                    "Anda sudah memiliki tiket permohonan yang sedang diproses. "
                    "Mohon tunggu peninjauan administrator."}
    assert "Retry-After" not in response.headers


def test_same_device_from_another_ip_gets_cooldown(client):
    first = submit_ticket(client, ip="198.51.100.7", device="dev-1").get_json()["ticket_number"]
    response = submit_ticket(client, ip="203.0.113.9", device="dev-1")
    assert response.status_code == 429
    # A device id alone, from another address, proves nothing: the number is not told.
    assert "ticket_number" not in response.get_json() and first not in response.get_data(as_text=True)


def test_other_ip_and_device_may_submit(client):
    assert submit_ticket(client, ip="198.51.100.7", device="dev-1").status_code == 201
    assert submit_ticket(client, ip="203.0.113.9", device="dev-2").status_code == 201
    assert submit_ticket(client, ip="203.0.113.10").status_code == 201


def test_ipv4_mapped_ipv6_peer_is_normalized(client):
    response = submit_ticket(client, ip="::ffff:198.51.100.7")
    assert response.get_json()["data"]["ip_address"] == "198.51.100.7"
    assert submit_ticket(client, ip="198.51.100.7").status_code == 429


@pytest.mark.parametrize("field,value,message", [
    ("name", "", "Wajib diisi."),
    ("name", "   ", "Wajib diisi."),
    ("name", "x" * 101, "Maksimal 100 karakter."),
    ("name", 42, "Harus berupa teks."),
    ("name", "Budi\x00", "Mengandung karakter yang tidak diizinkan."),
    ("name", "\tBudi", "Mengandung karakter yang tidak diizinkan."),  # as the document's pattern says
    ("name", "Budi\n", "Mengandung karakter yang tidak diizinkan."),
    ("email", "bukan-email", "Format alamat e-mail tidak valid."),
    ("email", "a" * 140 + "@example.com", "Maksimal 150 karakter."),
    ("phone", "1" * 31, "Maksimal 30 karakter."),
    ("reason", "x" * 1001, "Maksimal 1000 karakter."),
    ("reason", None, "Wajib diisi."),
])
def test_invalid_fields_get_422_keyed_by_field(client, field, value, message):
    response = submit_ticket(client, **{field: value})
    assert response.status_code == 422
    body = response.get_json()
    assert body["success"] is False and body["message"]
    assert body["errors"] == {field: [message]}


def test_missing_fields_are_listed(client):
    response = client.post(SUBMIT, json={})
    assert response.status_code == 422
    assert set(response.get_json()["errors"]) == {"name", "email", "reason"}


def test_limits_are_inclusive_and_values_trimmed(client):
    response = submit_ticket(client, name="  " + "n" * 100 + "  ", reason="r" * 1000, phone="")
    assert response.status_code == 201
    assert response.get_json()["data"]["name"] == "n" * 100


def test_multiline_reason_is_kept(client, app):
    from guardsvc.appeals.models import UnblockTicket
    from guardsvc.extensions import db

    submit_ticket(client, reason="Baris satu.\r\nBaris dua.\tTab.")
    with app.app_context():
        assert db.session.query(UnblockTicket).one().reason == "Baris satu.\nBaris dua.\tTab."


@pytest.mark.parametrize("header,value", [
    ("X-Device-Id", "bad device id"), ("X-Device-Id", "x" * 65), ("X-Device-Id", "<script>"),
    ("X-Local-Ip", "999.1.1.1"), ("X-Local-Ip", "localhost"),
])
def test_malformed_identity_headers_get_422(client, header, value):
    response = submit_ticket(client, headers={header: value})
    assert response.status_code == 422
    assert list(response.get_json()["errors"]) == [header]


def test_nothing_is_stored_when_validation_fails(client, app):
    from guardsvc.appeals.models import UnblockTicket
    from guardsvc.extensions import db

    submit_ticket(client, email="x")
    with app.app_context():
        assert db.session.query(UnblockTicket).count() == 0


def test_check_returns_public_fields_only(client):
    number = submit_ticket(client).get_json()["ticket_number"]
    response = client.get(f"/api/guard/unblock-tickets/check/{number}")
    assert response.status_code == 200
    body = response.get_json()
    assert body["success"] is True
    assert set(body["data"]) == {"ticket_number", "status", "created_at", "resolved_at", "admin_notes"}
    assert body["data"]["status"] == "pending"
    assert body["data"]["resolved_at"] is None and body["data"]["admin_notes"] is None
    text = response.get_data(as_text=True)
    for secret in ("Budi", "budi@example.com", "0812", "198.51.100.7", "pelanggaran"):
        assert secret not in text


def test_check_ignores_case_and_surrounding_spaces(client):
    number = submit_ticket(client).get_json()["ticket_number"]
    response = client.get(f"/api/guard/unblock-tickets/check/%20{number.lower()}%20")
    assert response.status_code == 200
    assert response.get_json()["data"]["ticket_number"] == number


@pytest.mark.parametrize("number", ["TKT-00000000", "nonsense", "TKT-1234567G", "TKT-123456789"])
def test_unknown_ticket_is_404(client, number):
    response = client.get(f"/api/guard/unblock-tickets/check/{number}")
    assert response.status_code == 404
    assert response.get_json() == {"success": False, "message": "Nomor tiket tidak ditemukan."}


def test_decision_requires_admin(client, bearer):
    number = submit_ticket(client).get_json()["ticket_number"]
    url = f"/api/guard/unblock-tickets/{number}/respond"
    assert client.post(url, json={"action": "approve"}).status_code == 401
    _, user_headers = bearer("user")
    assert client.post(url, json={"action": "approve"}, headers=user_headers).status_code == 403
    _, service_headers = bearer("service")
    assert client.post(url, json={"action": "approve"}, headers=service_headers).status_code == 403


def test_approve_lifts_exact_blocks_and_is_visible_to_appellant(client, bearer, make_block, app):
    exact = make_block(network="198.51.100.7")
    cidr = make_block(network="198.51.100.0/24")
    device = make_block(device_id="dev-9")
    other = make_block(network="203.0.113.0/24")
    number = submit_ticket(client, device="dev-9").get_json()["ticket_number"]
    _, headers = bearer("admin")
    response = client.post(f"/api/guard/unblock-tickets/{number}/respond",
                           json={"action": "approve", "admin_notes": "Maaf, salah blokir."}, headers=headers)
    assert response.status_code == 200
    assert sorted(response.get_json()["data"]["lifted_blocks"]) == sorted([exact, device])
    assert [(entry["target"], entry["device_id"]) for entry in response.get_json()["data"]["allow_entries"]] == [
        ("198.51.100.7", "dev-9")]
    status = client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]
    assert status["status"] == "approved"
    assert status["admin_notes"] == "Maaf, salah blokir."
    assert TIMESTAMP.match(status["resolved_at"])
    with app.app_context():
        from guardsvc.blocks.service import get_block

        assert all(get_block(ref).lifted_at is not None for ref in (exact, device))
        assert get_block(cidr).lifted_at is None and get_block(other).lifted_at is None


def test_reject_keeps_blocks_and_uses_default_notes(client, bearer, make_block, app):
    ref = make_block(network="198.51.100.7")
    number = submit_ticket(client).get_json()["ticket_number"]
    _, headers = bearer("admin")
    response = client.post(f"/api/guard/unblock-tickets/{number}/respond", json={"action": "reject"},
                           headers=headers)
    assert response.status_code == 200
    assert response.get_json()["data"]["admin_notes"] == "Permohonan ditolak."
    with app.app_context():
        from guardsvc.blocks.service import get_block

        assert get_block(ref).lifted_at is None


def test_second_decision_is_409_and_client_may_submit_again(client, bearer):
    number = submit_ticket(client).get_json()["ticket_number"]
    _, headers = bearer("admin")
    url = f"/api/guard/unblock-tickets/{number}/respond"
    assert client.post(url, json={"action": "reject"}, headers=headers).status_code == 200
    second = client.post(url, json={"action": "approve"}, headers=headers)
    assert second.status_code == 409
    assert second.get_json()["success"] is False
    assert submit_ticket(client).status_code == 201


def test_decision_validation(client, bearer):
    number = submit_ticket(client).get_json()["ticket_number"]
    _, headers = bearer("admin")
    url = f"/api/guard/unblock-tickets/{number}/respond"
    response = client.post(url, json={"action": "maybe", "admin_notes": "x" * 1001}, headers=headers)
    assert response.status_code == 422
    assert set(response.get_json()["errors"]) == {"action", "admin_notes"}
    assert client.post("/api/guard/unblock-tickets/TKT-00000000/respond", json={"action": "reject"},
                       headers=headers).status_code == 404
