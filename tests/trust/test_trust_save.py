"""save-my-ip: both carriers of identity, CSRF, the record's shape, refresh semantics."""
import re

import pytest

from tests.support.pages_support import sign_in_session

URL = "/api/security/trusted-ips/save-my-ip"
CHROME_WINDOWS = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0 Safari/537.36")


def save(client, headers, ip="203.0.113.7", **kwargs):
    return client.post(URL, headers=headers, environ_base={"REMOTE_ADDR": ip}, **kwargs)


def test_first_registration_is_201_with_exact_fields(client, bearer):
    user, headers = bearer()
    response = save(client, {**headers, "X-Device-Id": "dev-1", "X-Local-Ip": "192.168.1.20",
                             "User-Agent": CHROME_WINDOWS}, json={"device_name": "  Laptop kantor "})
    assert response.status_code == 201
    body = response.get_json()
    assert body["success"] is True
    assert body["message"] == "IP 203.0.113.7 di perangkat ini kini tepercaya."
    data = body["data"]
    assert set(data) == {"id", "user_id", "ip_address", "local_ip", "device_id", "device_name",
                         "operating_system", "is_active", "verified_at"}
    assert data["user_id"] == user.id
    assert (data["ip_address"], data["local_ip"], data["device_id"]) == ("203.0.113.7", "192.168.1.20", "dev-1")
    assert data["device_name"] == "Laptop kantor"
    assert data["operating_system"] == CHROME_WINDOWS
    assert data["is_active"] is True
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", data["verified_at"])


def test_same_triple_again_is_200_and_refreshes(client, bearer, app):
    _, headers = bearer()
    first = save(client, {**headers, "X-Device-Id": "dev-1"}, json={"device_name": "Lama"}).get_json()["data"]
    second = save(client, {**headers, "X-Device-Id": "dev-1"}, json={"device_name": "Baru"})
    assert second.status_code == 200
    data = second.get_json()["data"]
    assert data["id"] == first["id"]
    assert data["device_name"] == "Baru"
    assert data["verified_at"] >= first["verified_at"]
    assert "203.0.113.7" in second.get_json()["message"]


def test_missing_device_matches_missing_device_only(client, bearer):
    _, headers = bearer()
    assert save(client, headers).status_code == 201
    assert save(client, headers).status_code == 200
    assert save(client, {**headers, "X-Device-Id": "dev-1"}).status_code == 201
    assert save(client, headers, ip="203.0.113.8").status_code == 201


def test_other_user_same_triple_gets_own_record(client, bearer):
    _, a = bearer()
    _, b = bearer()
    assert save(client, a).status_code == 201
    assert save(client, b).status_code == 201


@pytest.mark.parametrize("agent,name", [
    (CHROME_WINDOWS, "Chrome di Windows"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 "
     "Mobile/15E148 Safari/604.1", "Safari di iOS"),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox di Linux"),
    (None, "Perangkat tanpa nama"),
])
def test_blank_device_name_is_derived_from_user_agent(client, bearer, agent, name):
    _, headers = bearer()
    if agent:
        headers["User-Agent"] = agent
    else:
        headers["User-Agent"] = ""
    response = save(client, headers, json={"device_name": "   "})
    assert response.get_json()["data"]["device_name"] == name
    assert response.get_json()["data"]["operating_system"] == (agent or None)


def test_empty_body_is_allowed(client, bearer):
    _, headers = bearer()
    assert save(client, headers, data=b"").status_code == 201


def test_refresh_without_a_name_keeps_the_stored_name(client, bearer):
    _, headers = bearer()
    headers = {**headers, "X-Device-Id": "dev-keep", "User-Agent": CHROME_WINDOWS}
    save(client, headers, json={"device_name": "Laptop kantor"})
    again = save(client, headers, json={})
    assert again.status_code == 200
    assert again.get_json()["data"]["device_name"] == "Laptop kantor"


def test_device_name_too_long_is_422(client, bearer):
    _, headers = bearer()
    response = save(client, headers, json={"device_name": "x" * 101})
    assert response.status_code == 422
    assert response.get_json()["errors"] == {"device_name": ["Maksimal 100 karakter."]}


def test_long_user_agent_is_cut_to_255(client, bearer):
    _, headers = bearer()
    response = save(client, {**headers, "User-Agent": "A" * 400})
    assert response.get_json()["data"]["operating_system"] == "A" * 255


def test_bad_identity_headers_are_422(client, bearer):
    _, headers = bearer()
    response = save(client, {**headers, "X-Device-Id": "has space", "X-Local-Ip": "300.1.1.1"})
    assert response.status_code == 422
    assert set(response.get_json()["errors"]) == {"X-Device-Id", "X-Local-Ip"}


def test_anonymous_is_401_with_www_authenticate(client):
    response = client.post(URL, json={})
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert response.get_json()["success"] is False


@pytest.mark.parametrize("authorization", ["Bearer nope", "Bearer gsv_" + "x" * 43, "Basic dXNlcjpwYXNz", "Bearer"])
def test_bad_tokens_are_401(client, authorization):
    assert client.post(URL, json={}, headers={"Authorization": authorization}).status_code == 401


def test_revoked_token_is_401(client, bearer):
    _, headers = bearer()
    token_id = client.get("/api/auth/tokens", headers=headers).get_json()["data"][0]["id"]
    assert client.delete(f"/api/auth/tokens/{token_id}", headers=headers).status_code == 200
    assert save(client, headers).status_code == 401


def test_service_accounts_cannot_register(client, bearer):
    _, headers = bearer("service")
    assert save(client, headers).status_code == 403


def test_cookie_session_needs_csrf_token(client, make_user, app):
    user = make_user()
    token = sign_in_session(client, user)
    response = save(client, {"Content-Type": "application/json"}, data=b"{}")
    assert response.status_code == 400
    assert "CSRF" in response.get_json()["message"]
    ok = save(client, {"X-CSRFToken": token}, json={})
    assert ok.status_code == 201
    assert ok.get_json()["data"]["user_id"] == user.id


def test_bearer_wins_over_cookie_and_needs_no_csrf(client, make_user, bearer):
    cookie_user = make_user()
    sign_in_session(client, cookie_user)
    token_user, headers = bearer()
    response = save(client, headers, json={})
    assert response.status_code == 201
    assert response.get_json()["data"]["user_id"] == token_user.id
    # An invalid token waives nothing: the cookie still speaks, and it needs its CSRF token.
    assert save(client, {"Authorization": "Bearer wrong"}, json={}).status_code == 400


def test_x_forwarded_for_is_ignored_by_default(client, bearer):
    _, headers = bearer()
    response = save(client, {**headers, "X-Forwarded-For": "1.2.3.4"})
    assert response.get_json()["data"]["ip_address"] == "203.0.113.7"


def test_x_forwarded_for_is_honoured_for_declared_proxies(bearer, app, monkeypatch):
    from guardsvc import create_app

    monkeypatch.setenv("GUARDSVC_PROXY_COUNT", "1")
    proxied = create_app({"TESTING": True}).test_client()
    _, headers = bearer()
    response = save(proxied, {**headers, "X-Forwarded-For": "9.9.9.9, 1.2.3.4"}, ip="10.0.0.1")
    # Only the hop added by the one trusted proxy counts: the client cannot forge the rest.
    assert response.get_json()["data"]["ip_address"] == "1.2.3.4"
