"""Enforcement: blocked clients get 403 on guarded routes, never on the appeal routes."""
import pytest

from tests.support.blocks_helpers import BLOCKED_IP, FREE_IP, from_ip
from tests.support.factories import submit_ticket
from tests.support.pages_support import sign_in_session

GUARDED_JSON = [
    ("GET", "/api/auth/tokens"),
    ("GET", "/api/security/trusted-ips"),
    ("POST", "/api/security/trusted-ips/save-my-ip"),
    ("GET", "/api/guard/blocks/check?ip=192.0.2.1"),
    ("GET", "/api/admin/tickets"),
    ("POST", "/api/guard/unblock-tickets/TKT-00000000/respond"),
    ("GET", "/api/tidak-ada"),
]
GUARDED_HTML = ["/", "/akun", "/admin", "/admin/blokir", "/halaman-lain"]
# Signing in is never guarded either (contract section 15): an administrator can always reach /admin.
UNGUARDED = ["/banding", "/banding/cek", "/banding/cek?tiket=TKT-00000000", "/healthz", "/readyz",
             "/api/openapi.json", "/static/css/site.css", "/api/guard/unblock-tickets/check/TKT-00000000",
             "/masuk", "/masuk/kode", "/masuk/kode-email"]


@pytest.fixture()
def blocked(make_block):
    return make_block(network="203.0.113.0/24", reason="Spam")


@pytest.mark.parametrize("method,path", GUARDED_JSON)
def test_guarded_api_answers_blocked_json(client, blocked, method, path):
    response = client.open(path, method=method, **from_ip(BLOCKED_IP))
    assert response.status_code == 403
    assert response.get_json() == {
        "success": False, "blocked": True, "reference": blocked,
        "appeal_url": f"/banding?ref={blocked}",
        "message": "Akses Anda diblokir. Anda dapat mengajukan permohonan pembukaan blokir."}


@pytest.mark.parametrize("path", GUARDED_HTML)
def test_guarded_pages_show_the_block_page(client, blocked, path):
    response = client.get(path, **from_ip(BLOCKED_IP))
    assert response.status_code == 403
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert 'lang="id"' in html and "Akses Anda diblokir" in html
    assert blocked in html and f'href="/banding?ref={blocked}"' in html


@pytest.mark.parametrize("path", UNGUARDED)
def test_unguarded_routes_do_not_answer_blocked(client, blocked, path):
    response = client.get(path, **from_ip(BLOCKED_IP))
    assert response.status_code != 403
    assert b"Akses Anda diblokir" not in response.data
    assert not (response.is_json and response.get_json().get("blocked"))


def test_blocked_client_may_appeal_and_the_ticket_remembers_the_block(client, blocked, app):
    response = submit_ticket(client, BLOCKED_IP)
    assert response.status_code == 201
    with app.app_context():
        from guardsvc.appeals.service import find_ticket

        assert find_ticket(response.get_json()["ticket_number"]).block.reference == blocked


def test_free_client_is_not_blocked(client, blocked):
    assert client.get("/api/auth/tokens", **from_ip(FREE_IP)).status_code == 401


def test_device_block_applies_from_header_and_cookie(client, make_block):
    ref = make_block(device_id="dev-blocked")
    by_header = client.get("/api/auth/tokens", headers={"X-Device-Id": "dev-blocked"}, **from_ip(FREE_IP))
    assert by_header.get_json()["reference"] == ref
    client.set_cookie("guardsvc_device", "dev-blocked")
    assert client.get("/akun", **from_ip(FREE_IP)).status_code == 403


def test_local_ip_header_narrows(client, make_block):
    make_block(network=FREE_IP, local_ip="192.168.1.10")
    assert client.get("/api/auth/tokens", **from_ip(FREE_IP)).status_code == 401
    narrowed = client.get("/api/auth/tokens", headers={"X-Local-Ip": "192.168.1.10"}, **from_ip(FREE_IP))
    assert narrowed.status_code == 403


@pytest.mark.parametrize("header,value", [("X-Device-Id", "bad id"), ("X-Local-Ip", "nope")])
def test_malformed_identity_headers_on_guarded_route_are_422(client, header, value):
    response = client.get("/api/auth/tokens", headers={header: value}, **from_ip(FREE_IP))
    assert response.status_code == 422
    assert list(response.get_json()["errors"]) == [header]


def test_admin_with_bearer_token_is_never_blocked(client, blocked, bearer):
    _, headers = bearer("admin")
    response = client.get("/api/admin/tickets", headers=headers, **from_ip(BLOCKED_IP))
    assert response.status_code == 200


def test_admin_with_session_is_never_blocked(client, blocked, make_user):
    token = sign_in_session(client, make_user(role="admin"))
    response = client.get("/api/admin/blocks", **from_ip(BLOCKED_IP))
    assert response.status_code == 200
    lifted = client.post(f"/api/admin/blocks/{blocked}/lift", json={}, headers={"X-CSRFToken": token},
                         **from_ip(BLOCKED_IP))
    assert lifted.status_code == 200


@pytest.mark.parametrize("role", ["user", "service"])
def test_other_roles_are_blocked(client, blocked, bearer, role):
    _, headers = bearer(role)
    response = client.get("/api/auth/tokens", headers=headers, **from_ip(BLOCKED_IP))
    assert response.status_code == 403 and response.get_json()["blocked"] is True


def test_invalid_bearer_token_does_not_escape_the_block(client, blocked):
    response = client.get("/api/admin/tickets", headers={"Authorization": "Bearer nope"}, **from_ip(BLOCKED_IP))
    assert response.status_code == 403 and response.get_json()["blocked"] is True


def test_lifted_block_no_longer_applies(client, blocked, bearer):
    _, headers = bearer("admin")
    client.post(f"/api/admin/blocks/{blocked}/lift", json={}, headers=headers)
    assert client.get("/api/auth/tokens", **from_ip(BLOCKED_IP)).status_code == 401


def test_blocked_user_can_still_sign_out(client, blocked, make_user):
    token = sign_in_session(client, make_user(role="user"))
    response = client.post("/keluar", data={"csrf_token": token}, **from_ip(BLOCKED_IP))
    assert response.status_code in (302, 303)
    assert client.get("/api/auth/tokens", **from_ip(FREE_IP)).status_code == 401
