"""Forward auth: a proxy's sub-request is answered 204 (pass) or 403 (blocked) for the original client."""
import pytest

from guardsvc import create_app
from tests.support.blocks_helpers import BLOCKED_IP, FREE_IP, PROXY_SECRET

# What the proxy sends as X-Guardsvc-Secret to the apps these tests build (at least 32 characters).
PROXIED_SECRET = "rahasia-proksi-yang-panjang-0123456789"

URL = "/api/guard/forward-auth"
PROXY = "127.0.0.1"  # the TCP peer: the proxy itself


@pytest.fixture(scope="module")
def proxied_app(app):
    """The same database behind one trusted proxy (GUARDSVC_PROXY_COUNT=1)."""
    return create_app({"TESTING": True, "PROXY_COUNT": 1})


@pytest.fixture()
def proxy(proxied_app):
    """``proxy(client_ip, **headers)`` -> the answer to the sub-request nginx would send (with its secret)."""
    client = proxied_app.test_client()

    def ask(forwarded_for, device_cookie=None, **headers):
        headers = {"X-Guardsvc-Secret": PROXY_SECRET, **headers, "X-Forwarded-For": forwarded_for}
        if device_cookie:
            client.set_cookie("guardsvc_device", device_cookie)
        else:
            client.delete_cookie("guardsvc_device")
        return client.get(URL, headers=headers, environ_base={"REMOTE_ADDR": PROXY})
    return ask


def test_free_client_passes_and_a_new_browser_gets_a_device_cookie(proxy):
    response = proxy(FREE_IP)
    assert response.status_code == 204
    assert response.data == b""
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("guardsvc_device=") and "HttpOnly" in cookie and "Path=/" in cookie


def test_a_known_device_gets_no_new_cookie(proxy):
    assert "Set-Cookie" not in proxy(FREE_IP, device_cookie="dev-known").headers
    assert "Set-Cookie" not in proxy(FREE_IP, **{"X-Device-Id": "dev-known"}).headers


def test_blocked_ip_is_refused_with_the_reference(proxy, make_block):
    reference = make_block(network=BLOCKED_IP)
    response = proxy(BLOCKED_IP)
    assert response.status_code == 403
    assert response.headers["X-Guardsvc-Reference"] == reference
    assert response.get_json() == {
        "success": False, "blocked": True, "reference": reference,
        "appeal_url": f"/banding?ref={reference}",
        "message": "Akses Anda diblokir. Anda dapat mengajukan permohonan pembukaan blokir."}


def test_appeal_url_carries_the_prefix_guardsvc_is_served_under(proxy, make_block):
    reference = make_block(network=BLOCKED_IP)
    response = proxy(BLOCKED_IP, **{"X-Forwarded-Prefix": "/guardsvc"})
    assert response.get_json()["appeal_url"] == f"/guardsvc/banding?ref={reference}"


def test_only_the_trusted_hop_counts(proxy, make_block):
    make_block(network=BLOCKED_IP)
    # The client wrote the first entry itself; the proxy appended the real peer.
    assert proxy(f"{FREE_IP}, {BLOCKED_IP}").status_code == 403
    assert proxy(f"{BLOCKED_IP}, {FREE_IP}").status_code == 204


@pytest.mark.parametrize("network,forwarded", [
    ("203.0.113.0/24", "203.0.113.7:5123"),
    ("2001:db8::/32", "[2001:db8::1]:443"),
    ("2001:db8::/32", "2001:db8::1"),
    ("203.0.113.7", "::ffff:203.0.113.7"),
])
def test_forwarded_entries_with_ports_and_ranges_count_as_their_address(proxy, make_block, network, forwarded):
    make_block(network=network)
    assert proxy(forwarded).status_code == 403


@pytest.mark.parametrize("forwarded", ["not-an-ip", "203.0.113.7:port", "[2001:db8::1", "unknown"])
def test_an_unreadable_forwarded_address_is_a_bad_request(proxy, forwarded):
    response = proxy(forwarded)
    assert response.status_code == 400
    assert response.get_json()["success"] is False


def test_device_blocks_apply_by_header_and_by_forwarded_cookie(proxy, make_block):
    reference = make_block(device_id="dev-blocked")
    assert proxy(FREE_IP, **{"X-Device-Id": "dev-blocked"}).headers["X-Guardsvc-Reference"] == reference
    assert proxy(FREE_IP, device_cookie="dev-blocked").status_code == 403
    # The header wins over the cookie, as everywhere.
    assert proxy(FREE_IP, device_cookie="dev-blocked", **{"X-Device-Id": "dev-other"}).status_code == 204


def test_local_ip_narrowing_applies(proxy, make_block):
    make_block(network="203.0.113.0/24", local_ip="10.0.0.5")
    assert proxy(BLOCKED_IP).status_code == 204
    assert proxy(BLOCKED_IP, **{"X-Local-Ip": "10.0.0.5"}).status_code == 403


def test_malformed_identity_headers_are_refused(proxy):
    assert proxy(FREE_IP, **{"X-Device-Id": "bad id!"}).status_code == 422


def test_an_administrator_session_does_not_change_the_judgement(proxy, make_block, bearer):
    make_block(network=BLOCKED_IP)
    _, headers = bearer("admin")
    assert proxy(BLOCKED_IP, **headers).status_code == 403


def test_lifting_a_block_lets_the_client_through_at_once(proxy, make_block, app):
    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db

    reference = make_block(network=BLOCKED_IP)
    assert proxy(BLOCKED_IP).status_code == 403
    with app.app_context():
        lift_block(reference)
        db.session.commit()
    assert proxy(BLOCKED_IP).status_code == 204


@pytest.fixture()
def secret(proxied_app):
    proxied_app.config["FORWARD_AUTH_SECRET"] = "s3cret-value-that-is-long-enough-0123456789"
    yield "s3cret-value-that-is-long-enough-0123456789"
    proxied_app.config["FORWARD_AUTH_SECRET"] = PROXY_SECRET


def test_a_configured_secret_is_required(proxy, secret):
    assert proxy(FREE_IP).status_code == 401  # the test settings' secret, no longer this one
    assert proxy(FREE_IP, **{"X-Guardsvc-Secret": ""}).status_code == 401
    assert proxy(FREE_IP, **{"X-Guardsvc-Secret": "wrong"}).status_code == 401
    assert proxy(FREE_IP, **{"X-Guardsvc-Secret": secret}).status_code == 204


def test_device_cookie_domain_and_path_are_configurable(proxy, proxied_app):
    proxied_app.config.update(DEVICE_COOKIE_DOMAIN="example.test", DEVICE_COOKIE_PATH="/app")
    try:
        cookie = proxy(FREE_IP).headers["Set-Cookie"]
    finally:
        proxied_app.config.update(DEVICE_COOKIE_DOMAIN=None, DEVICE_COOKIE_PATH="/")
    assert "Domain=example.test" in cookie and "Path=/app" in cookie


def test_without_a_proxy_the_tcp_peer_is_judged(app, make_block):
    client = create_app({"TESTING": True, "FORWARD_AUTH_SECRET": PROXIED_SECRET}).test_client()
    make_block(network=BLOCKED_IP)
    secret = {"X-Guardsvc-Secret": PROXIED_SECRET}
    forged = {"X-Forwarded-For": BLOCKED_IP, **secret}
    assert client.get(URL, headers=forged, environ_base={"REMOTE_ADDR": FREE_IP}).status_code == 204
    assert client.get(URL, headers=secret, environ_base={"REMOTE_ADDR": BLOCKED_IP}).status_code == 403


def test_a_loopback_peer_without_the_secret_is_refused(client):
    # Behind a proxy on the same host every visitor arrives from loopback: an address proves nothing.
    for peer in ("127.0.0.1", "::1", FREE_IP):
        response = client.get(URL, environ_base={"REMOTE_ADDR": peer})
        assert response.status_code == 401 and response.get_json()["success"] is False
    secret = {"X-Guardsvc-Secret": PROXY_SECRET}
    assert client.get(URL, headers=secret, environ_base={"REMOTE_ADDR": FREE_IP}).status_code == 204


def test_an_empty_secret_refuses_every_caller(app):
    client = create_app({"TESTING": True, "FORWARD_AUTH_SECRET": ""}).test_client()
    for headers in ({}, {"X-Guardsvc-Secret": ""}, {"X-Guardsvc-Secret": PROXY_SECRET}):
        assert client.get(URL, headers=headers, environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 401
        assert client.get("/edge/v1/decisions", headers=headers).status_code == 401


def test_a_browser_gets_the_block_page_itself_with_its_403(proxy, make_block):
    reference = make_block(network=BLOCKED_IP, reason="Spam komentar")
    browser_accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    page = proxy(BLOCKED_IP, Accept=browser_accept, **{"X-Forwarded-Prefix": "/guardsvc"})
    assert page.status_code == 403 and page.mimetype == "text/html"
    assert page.headers["X-Guardsvc-Reference"] == reference and page.headers["Cache-Control"] == "no-store"
    html = page.get_data(as_text=True)
    assert reference in html and BLOCKED_IP in html and f'href="/guardsvc/banding?ref={reference}"' in html
    # A script or an API client keeps the JSON, whatever else it accepts.
    for accept in ("application/json", "*/*", "application/json, text/html;q=0.5"):
        assert proxy(BLOCKED_IP, Accept=accept).get_json()["reference"] == reference
