"""The login history as JSON: own attempts for users, every attempt for administrators."""
import pytest

from tests.support.signin_support import rate_limits_off, request_token  # noqa: F401

pytestmark = pytest.mark.usefixtures("rate_limits_off")


def test_user_sees_own_attempts_newest_first(client, make_user, make_token):
    user, other = make_user(), make_user()
    request_token(client, user.email, "salah-sekali")
    request_token(client, user.email, ip="203.0.113.5")
    request_token(client, other.email)
    headers = {"Authorization": f"Bearer {make_token(user)}"}
    body = client.get("/api/auth/logins", headers=headers).get_json()
    assert [(e["result"], e["ip_address"]) for e in body["data"]] == [
        ("success", "203.0.113.5"), ("wrong_password", "198.51.100.20")]
    first = body["data"][0]
    assert first["device"] == "Chrome di Windows"
    assert first["created_at"].endswith("Z")
    assert "user_id" not in first


def test_admin_sees_everyone_and_filters_by_result(client, make_user, bearer):
    user = make_user()
    request_token(client, user.email, "salah-sekali")
    request_token(client, "tidak-ada@example.com", "x")
    request_token(client, user.email)
    _, admin = bearer(role="admin")
    everything = client.get("/api/admin/logins", headers=admin).get_json()["data"]
    assert len(everything) == 3
    wrong = client.get("/api/admin/logins?result=wrong_password", headers=admin).get_json()["data"]
    assert sorted(e["email"] for e in wrong) == sorted([user.email, "tidak-ada@example.com"])
    assert {e["user_id"] for e in wrong} == {user.id, None}
    assert len(client.get("/api/admin/logins?limit=1", headers=admin).get_json()["data"]) == 1
    bad = client.get("/api/admin/logins?result=nope&limit=0", headers=admin)
    assert bad.status_code == 422 and set(bad.get_json()["errors"]) == {"result", "limit"}


@pytest.mark.parametrize("role,status", [("user", 403), ("service", 403)])
def test_admin_history_refuses_others(client, bearer, role, status):
    _, headers = bearer(role=role)
    assert client.get("/api/admin/logins", headers=headers).status_code == status
    assert client.get("/api/admin/logins").status_code == 401
