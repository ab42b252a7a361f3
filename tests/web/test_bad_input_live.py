"""Bad input a real server once took badly, replayed against gunicorn as shipped: a clear 4xx, nothing stored.

Row ids past the database's integer columns, expiry times that leave the years
1-9999 in UTC, IPv6 addresses with a zone id, chunked bodies over the limit, and
bodies shorter than their Content-Length.
"""
import json
import re
import select as io_select
import socket

import pytest
import requests
from sqlalchemy import func, select

from guardsvc import messages
from guardsvc.appeals.models import UnblockTicket
from guardsvc.audit.models import AuditEvent
from guardsvc.blocks.models import AllowEntry, Block
from guardsvc.extensions import db
from guardsvc.web.row_ids import ROW_ID_MAX
from tests.support.factories import PASSWORD, submit_body
from tests.support.live import LiveServer
from tests.support.pages_support import CSRF_META

pytestmark = pytest.mark.live

BODY_SECONDS = 3
PAST_INT32 = (2**31, 2**31 + 7, 2**63, 10**30)
JSON = {"Accept": "application/json"}


@pytest.fixture(scope="module")
def server(app):
    """One worker with a few threads, a short wait for bodies that do not arrive, behind one declared proxy.

    Requests without X-Forwarded-For are the TCP peer's, as without a proxy.
    """
    server = LiveServer(workers=1, threads=4, env={"GUARDSVC_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS),
                                                   "GUARDSVC_PROXY_COUNT": "1"})
    yield server
    server.stop()


def count(app, model):
    with app.app_context():
        total = db.session.scalar(select(func.count()).select_from(model))
        db.session.remove()
        return total


def assert_json_refusal(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["success"] is False and body["message"], body
    return body


def signed_in_browser(server, user):
    """A requests session signed in through /masuk, and a CSRF token of its session."""
    browser = requests.Session()
    token = CSRF_META.search(browser.get(server.url + "/masuk", timeout=30).text).group(1)
    signed_in = browser.post(server.url + "/masuk", data={"csrf_token": token, "email": user.email,
                                                          "password": PASSWORD}, allow_redirects=False, timeout=30)
    assert signed_in.status_code == 303, signed_in.text
    return browser, CSRF_META.search(browser.get(server.url + "/admin/izin", timeout=30).text).group(1)


# Row ids ------------------------------------------------------------------------------------------

def test_row_ids_past_the_integer_columns_are_not_found(app, server, bearer, make_allow):
    _, admin = bearer("admin")
    _, user = bearer("user")
    entry_id = make_allow(network="192.0.2.10")
    written = count(app, AuditEvent)
    for row_id in (*PAST_INT32, 0):
        assert_json_refusal(requests.post(f"{server.url}/api/admin/allows/{row_id}/remove",
                                          headers={**admin, **JSON}, timeout=10), 404)
        assert_json_refusal(requests.delete(f"{server.url}/api/security/trusted-ips/{row_id}",
                                            headers={**user, **JSON}, timeout=10), 404)
        assert_json_refusal(requests.delete(f"{server.url}/api/auth/tokens/{row_id}",
                                            headers={**user, **JSON}, timeout=10), 404)
    # Nothing was removed or written down; the same route with a real id does its work.
    assert count(app, AuditEvent) == written
    removed = requests.post(f"{server.url}/api/admin/allows/{entry_id}/remove", headers=admin, timeout=10)
    assert removed.status_code == 200, removed.text


def test_the_allow_page_refuses_row_ids_past_the_integer_columns(app, server, make_user, make_allow):
    entry_id = make_allow(network="192.0.2.11")
    browser, token = signed_in_browser(server, make_user(role="admin"))
    for row_id in PAST_INT32:
        page = browser.post(f"{server.url}/admin/izin/{row_id}/hapus", data={"csrf_token": token},
                            allow_redirects=False, timeout=10)
        assert page.status_code == 404, page.text[:500]
        assert "text/html" in page.headers["Content-Type"]
    with app.app_context():
        assert db.session.get(AllowEntry, entry_id).removed_at is None
        db.session.remove()


def test_the_document_bounds_every_integer_path_parameter(server):
    document = requests.get(server.url + "/api/openapi.json", timeout=10).json()
    integers = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter["schema"].get("type") == "integer":
                    integers[f"{method.upper()} {path}"] = parameter["schema"]
    assert "POST /api/admin/allows/{id}/remove" in integers, sorted(integers)
    assert all(schema["minimum"] == 1 and schema["maximum"] == ROW_ID_MAX == 2**31 - 1
               for schema in integers.values()), integers


def test_an_unreadable_forwarded_address_is_the_documented_400_on_every_get(app, server, bearer):
    _, admin = bearer("admin")
    document = requests.get(server.url + "/api/openapi.json", timeout=10).json()
    gets = [path for path, item in document["paths"].items() if "get" in item and "{" not in path]
    assert len(gets) > 10, gets
    for path in gets:
        response = requests.get(server.url + path, headers={**admin, **JSON, "X-Forwarded-For": "bukan-alamat"},
                                timeout=10)
        assert_json_refusal(response, 400)
        assert "X-Forwarded-For" in document["paths"][path]["get"]["responses"]["400"]["description"], path


# Expiry times out of range ------------------------------------------------------------------------

@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
def test_an_expiry_leaving_the_years_1_to_9999_is_a_field_error(app, server, bearer, moment):
    _, admin = bearer("admin")
    for path, model in (("/api/admin/blocks", Block), ("/api/admin/allows", AllowEntry)):
        response = requests.post(server.url + path, json={"ip": "198.51.100.20", "expires_at": moment},
                                 headers={**admin, **JSON}, timeout=10)
        body = assert_json_refusal(response, 422)
        assert body["errors"] == {"expires_at": [str(messages.FIELD_TIMESTAMP_OUT_OF_RANGE)]}, body
        english = requests.post(server.url + path, json={"ip": "198.51.100.20", "expires_at": moment},
                                headers={**admin, **JSON, "Accept-Language": "en"}, timeout=10).json()
        assert english["errors"]["expires_at"] == ["This moment leaves the years 1 to 9999 once converted to UTC."]
        assert count(app, model) == 0
    # The pages and the CLI take a duration in minutes (at most ten years), never a moment.


# IPv6 zone ids ------------------------------------------------------------------------------------

ZONED = ("fe80::1%eth0", "fe80::%eth0/64", "fe80::1%1")
ZONE_MESSAGE = ("Tanpa id zona (bagian setelah tanda persen): alamat dengan id zona tidak pernah cocok "
                "dengan klien mana pun.")


def test_a_zone_id_is_refused_on_blocks_and_allow_entries(app, server, bearer, make_user):
    _, admin = bearer("admin")
    for path in ("/api/admin/blocks", "/api/admin/allows"):
        for target in ZONED:
            response = requests.post(server.url + path, json={"ip": target}, headers={**admin, **JSON}, timeout=10)
            assert assert_json_refusal(response, 422)["errors"] == {"ip": [ZONE_MESSAGE]}
    browser, token = signed_in_browser(server, make_user(role="admin"))
    for path in ("/admin/blokir", "/admin/izin"):
        page = browser.post(server.url + path, data={"csrf_token": token, "ip": "fe80::1%eth0"},
                            allow_redirects=False, timeout=10)
        assert page.status_code == 422 and ZONE_MESSAGE in page.text, page.text[:500]
    assert count(app, Block) == count(app, AllowEntry) == 0


def test_the_cli_refuses_a_zone_id(app, runner):
    for group in ("blocks", "allows"):
        result = runner.invoke(args=[group, "add", "--ip", "fe80::1%eth0"])
        assert result.exit_code != 0 and ZONE_MESSAGE in result.output, result.output
    assert count(app, Block) == count(app, AllowEntry) == 0


# Chunked bodies -----------------------------------------------------------------------------------

def post_chunked(server, path, body, content_type, headers=None, piece=8192):
    """POST ``body`` with Transfer-Encoding: chunked (no Content-Length); returns (status, text).

    A refused body's connection is reset once it is answered (guardsvc.web.bodies): like a
    browser, curl or urllib3, the client reads the answer when its sending fails.
    """
    response = requests.post(server.url + path, data=(body[i:i + piece] for i in range(0, len(body), piece)),
                             headers={"Content-Type": content_type, **JSON, **(headers or {})}, timeout=30)
    assert "Content-Length" not in response.request.headers
    return response.status_code, response.text


def test_a_chunked_body_over_the_limit_is_too_large_never_cut(app, server):
    submit = "/api/guard/unblock-tickets/submit"
    # 70 KB of valid JSON: cut at 64 KiB it would be a 400; whole, it is simply too large.
    valid = json.dumps(submit_body(reason="Saya tidak melanggar. " + "a" * 70_000)).encode()
    status, text = post_chunked(server, submit, valid, "application/json")
    assert status == 413 and json.loads(text)["success"] is False, text
    # 100 KB whose first part is a whole ticket: its first 64 KiB must never be read as the body.
    head = json.dumps(submit_body()).encode()
    status, text = post_chunked(server, submit, head + b" " * 100_000, "application/json")
    assert status == 413, text
    status, text = post_chunked(server, submit, b"name=Budi&" + b"x" * 100_000, "application/x-www-form-urlencoded")
    assert status == 413, text
    assert count(app, UnblockTicket) == 0
    # A chunked body within the limit is read whole, as any other.
    status, text = post_chunked(server, submit, json.dumps(submit_body()).encode(), "application/json")
    assert status == 201, text
    assert count(app, UnblockTicket) == 1


def test_a_chunked_form_over_the_limit_is_too_large(app, server):
    browser = requests.Session()
    token = CSRF_META.search(browser.get(server.url + "/banding", timeout=30).text).group(1)
    form = "&".join(f"{key}={value}" for key, value in {**submit_body(), "csrf_token": token}.items())
    cookie = "; ".join(f"{name}={value}" for name, value in browser.cookies.items())
    status, text = post_chunked(server, "/banding", (form + "&padding=" + "x" * 100_000).encode(),
                                "application/x-www-form-urlencoded", headers={"Cookie": cookie, "Accept": "text/html"})
    assert status == 413, text[:500]
    assert count(app, UnblockTicket) == 0


# Bodies shorter than their Content-Length ---------------------------------------------------------

def open_partial_submit(server, declared=2000):
    """Headers and the first part of a valid ticket, then silence: the rest never comes."""
    body = json.dumps(submit_body()).encode()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(b"POST /api/guard/unblock-tickets/submit HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Type: application/json\r\nAccept: application/json\r\n"
                 + f"Content-Length: {max(declared, len(body) + 1)}\r\n\r\n".encode() + body)
    return sock


def read_answer(sock):
    data = b""
    while True:
        try:
            piece = sock.recv(4096)
        except (ConnectionResetError, socket.timeout):
            break
        if not piece:
            break
        data += piece
        if b"\r\n\r\n" in data:
            head, _, rest = data.partition(b"\r\n\r\n")
            length = re.search(rb"(?i)content-length: *(\d+)", head)
            if length and len(rest) >= int(length.group(1)):
                break
    return data


def test_a_body_that_never_arrives_is_dropped_and_nothing_stored(app, server):
    # Three of the worker's four threads wait on silent clients; the fourth still answers others,
    # before any of the silent ones has been given up on.
    silent = [open_partial_submit(server) for _ in range(3)]
    try:
        assert requests.get(server.url + "/healthz", timeout=10).status_code == 200
        assert not any(select_readable(sock) for sock in silent)
        answers = [read_answer(sock) for sock in silent]
    finally:
        for sock in silent:
            sock.close()
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 408"), answer[:300]
        body = json.loads(answer.partition(b"\r\n\r\n")[2])
        assert body == {"success": False, "message": str(messages.BODY_TIMEOUT)}, body
    assert count(app, UnblockTicket) == 0
    assert requests.get(server.url + "/healthz", timeout=10).status_code == 200


def select_readable(sock):
    """Whether ``sock`` has something to read (an answer, or its end) right now."""
    readable, _, _ = io_select.select([sock], [], [], 0)
    return bool(readable)


def test_a_client_that_leaves_mid_body_stores_nothing(app, server):
    for _ in range(3):
        open_partial_submit(server).close()
    assert requests.get(server.url + "/healthz", timeout=10).status_code == 200
    # The same body sent whole is a ticket: what was refused was the missing part, nothing else.
    whole = requests.post(server.url + "/api/guard/unblock-tickets/submit", json=submit_body(), headers=JSON,
                          timeout=10)
    assert whole.status_code == 201, whole.text
    assert count(app, UnblockTicket) == 1


def test_the_cli_bounds_row_ids_like_the_urls(app, runner, make_allow):
    entry_id = make_allow(network="192.0.2.12")
    for args in (["allows", "remove"], ["webhooks", "remove"], ["tokens", "revoke"]):
        result = runner.invoke(args=[*args, str(2**31)])
        assert result.exit_code == 2 and "2147483647" in result.output, (args, result.output)
    with app.app_context():
        assert db.session.get(AllowEntry, entry_id).removed_at is None
        db.session.remove()
