"""Functional tests of the trusted-IP endpoints: save, list, revoke, host check, lifetime."""
from datetime import timedelta

import pytest

from guardsvc.storage import clock

BASE = "/api/security/trusted-ips"


def save(client, headers, ip="203.0.113.7", device="dev-1", **body):
    extra = {"X-Device-Id": device} if device else {}
    return client.post(BASE + "/save-my-ip", json=body, headers={**headers, **extra},
                       environ_base={"REMOTE_ADDR": ip})


def check(client, headers, user_id, ip="203.0.113.7", device="dev-1"):
    query = {"user_id": user_id, "ip": ip}
    if device:
        query["device_id"] = device
    return client.get(BASE + "/check", query_string=query, headers=headers)


def test_save_creates_then_refreshes(client, bearer):
    user, headers = bearer()
    first = save(client, headers, device_name="Laptop kantor")
    assert first.status_code == 201
    assert first.get_json()["message"] == "IP 203.0.113.7 di perangkat ini kini tepercaya."
    again = save(client, headers, device_name="Laptop rumah")
    assert again.status_code == 200
    assert again.get_json()["data"]["id"] == first.get_json()["data"]["id"]
    assert again.get_json()["data"]["device_name"] == "Laptop rumah"


def test_list_shows_only_own_records(client, bearer):
    _, alice = bearer()
    _, bob = bearer()
    save(client, alice, ip="203.0.113.7")
    save(client, alice, ip="203.0.113.8")
    save(client, bob, ip="203.0.113.9")
    body = client.get(BASE, headers=alice).get_json()
    assert body["success"] is True
    assert sorted(r["ip_address"] for r in body["data"]) == ["203.0.113.7", "203.0.113.8"]


def test_owner_revokes_and_record_stops_counting(client, bearer):
    user, headers = bearer()
    _, admin = bearer(role="admin")
    record = save(client, headers).get_json()["data"]
    assert check(client, admin, user.id).get_json()["data"] == {"trusted": True}
    response = client.delete(f"{BASE}/{record['id']}", headers=headers)
    assert response.status_code == 200
    assert response.get_json()["data"]["is_active"] is False
    assert check(client, admin, user.id).get_json()["data"] == {"trusted": False}
    listed = client.get(BASE, headers=headers).get_json()["data"]
    assert [r["is_active"] for r in listed] == [False]  # kept for audit


def test_saving_again_after_revoke_reactivates(client, bearer):
    user, headers = bearer()
    _, admin = bearer(role="admin")
    record = save(client, headers).get_json()["data"]
    client.delete(f"{BASE}/{record['id']}", headers=headers)
    assert save(client, headers).status_code == 200
    assert check(client, admin, user.id).get_json()["data"]["trusted"] is True


def test_revoking_another_users_record_is_404_and_changes_nothing(client, bearer):
    owner, owner_headers = bearer()
    _, other = bearer()
    _, admin = bearer(role="admin")
    record = save(client, owner_headers).get_json()["data"]
    response = client.delete(f"{BASE}/{record['id']}", headers=other)
    assert response.status_code == 404
    assert response.get_json()["message"] == "Perangkat tepercaya tidak ditemukan."
    assert check(client, admin, owner.id).get_json()["data"]["trusted"] is True
    assert client.delete(f"{BASE}/999999", headers=other).status_code == 404


@pytest.mark.parametrize("role", ["admin", "service"])
def test_check_answers_admin_and_service(client, bearer, role):
    user, headers = bearer()
    _, caller = bearer(role=role)
    save(client, headers)
    assert check(client, caller, user.id).status_code == 200
    assert check(client, caller, user.id).get_json() == {"success": True, "data": {"trusted": True}}
    # Exact match of IP and device: anything else is not trusted.
    assert check(client, caller, user.id, ip="203.0.113.99").get_json()["data"]["trusted"] is False
    assert check(client, caller, user.id, device="dev-2").get_json()["data"]["trusted"] is False
    assert check(client, caller, user.id, device=None).get_json()["data"]["trusted"] is False


def test_check_matches_missing_device_with_missing_device(client, bearer):
    user, headers = bearer()
    _, admin = bearer(role="admin")
    save(client, headers, device=None)
    assert check(client, admin, user.id, device=None).get_json()["data"]["trusted"] is True
    assert check(client, admin, user.id, device="dev-1").get_json()["data"]["trusted"] is False


def test_check_refuses_plain_user_and_anonymous(client, bearer):
    user, headers = bearer()
    assert check(client, headers, user.id).status_code == 403
    response = check(client, {}, user.id)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_check_validates_query(client, bearer):
    _, admin = bearer(role="admin")
    response = client.get(BASE + "/check", query_string={"user_id": "x", "ip": "nope"}, headers=admin)
    assert response.status_code == 422
    assert set(response.get_json()["errors"]) == {"user_id", "ip"}


def test_trust_expires_after_configured_lifetime(app, client, bearer, monkeypatch):
    user, headers = bearer()
    _, admin = bearer(role="admin")
    monkeypatch.setitem(app.config, "TRUST_LIFETIME_DAYS", 30)
    save(client, headers)
    start = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=29, hours=23))
    assert check(client, admin, user.id).get_json()["data"]["trusted"] is True
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=30, minutes=1))
    assert check(client, admin, user.id).get_json()["data"]["trusted"] is False
    # Saving again renews the trust from now.
    assert save(client, headers).status_code == 200
    assert check(client, admin, user.id).get_json()["data"]["trusted"] is True


def test_lifetime_zero_never_expires(app, client, bearer, monkeypatch):
    user, headers = bearer()
    _, admin = bearer(role="admin")
    monkeypatch.setitem(app.config, "TRUST_LIFETIME_DAYS", 0)
    save(client, headers)
    start = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=3650))
    assert check(client, admin, user.id).get_json()["data"]["trusted"] is True
