"""Bad input is refused in the documented shape and never answered 500 (contract sections 1 and 2)."""
import pytest

from guardsvc import create_app, messages
from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent
from tests.support.factories import PASSWORD
from tests.support.pages_support import csrf_token, sign_in_session, text_of
from tests.support.signin_support import enable_2fa, request_token

NESTED = "[" * 10000
SURROGATE = "\\ud800"  # as JSON text: a lone surrogate, no character at all
FULL_WIDTH = "１２３４５６"  # full-width digits: not a code
ARABIC_INDIC = "٣٤٥٦٧٨"


@pytest.fixture()
def json_targets(make_block, make_ticket, bearer):
    """Every JSON endpoint that takes a body: (path, headers, a text field it reads)."""
    _, user = bearer()
    _, admin = bearer(role="admin")
    reference = make_block(network="192.0.2.50", reason="uji")
    ticket = make_ticket(ip="198.51.100.77")
    return [
        ("/api/auth/tokens", {}, "email"),
        ("/api/auth/tokens", {}, "password"),
        ("/api/auth/tokens", {}, "otp"),
        ("/api/guard/unblock-tickets/submit", {}, "reason"),
        ("/api/guard/unblock-tickets/submit", {}, "name"),
        ("/api/security/trusted-ips/save-my-ip", user, "device_name"),
        ("/api/admin/blocks", admin, "reason"),
        (f"/api/admin/blocks/{reference}/lift", admin, "reason"),
        ("/api/admin/allows", admin, "reason"),
        (f"/api/guard/unblock-tickets/{ticket.ticket_number}/respond", admin, "admin_notes"),
    ]


def post_json(client, path, raw, headers):
    return client.post(path, data=raw, content_type="application/json",
                       headers={"Accept": "application/json", **headers})


def assert_json_failure(response, status):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["success"] is False and body["message"]
    return body


def test_deeply_nested_json_is_a_bad_request_everywhere(client, json_targets):
    for path, headers, _ in json_targets:
        assert_json_failure(post_json(client, path, NESTED, headers), 400)
        assert_json_failure(post_json(client, path, '{"a": ' + NESTED, headers), 400)


def test_lone_surrogates_are_field_errors_everywhere(client, json_targets):
    for path, headers, field in json_targets:
        for value in (f'"{SURROGATE}"', f'"abc{SURROGATE}def"', f'["{SURROGATE}"]', f'{{"x": "{SURROGATE}"}}'):
            body = assert_json_failure(post_json(client, path, f'{{"{field}": {value}}}', headers), 422)
            assert body["errors"] == {field: [messages.FIELD_BAD_CHARS]}, (path, value)


def test_surrogate_in_a_field_name_is_refused_too(client):
    body = assert_json_failure(post_json(client, "/api/auth/tokens", f'{{"{SURROGATE}": "x"}}', {}), 422)
    assert list(body["errors"].values()) == [[messages.FIELD_BAD_CHARS]]


@pytest.mark.parametrize("code", [FULL_WIDTH, ARABIC_INDIC, "12345６", "kode！"])
def test_non_ascii_code_is_a_format_error_before_the_password(app, client, make_user, code):
    user = make_user()
    enable_2fa(app, user)
    for password in (PASSWORD, "salah-sekali"):
        response = request_token(client, user.email, password, otp=code)
        body = assert_json_failure(response, 422)
        assert body["errors"] == {"otp": [messages.FIELD_BAD_CODE]}
    with app.app_context():  # refused on its shape: no password was checked, nothing recorded
        assert db.session.scalar(db.select(db.func.count()).select_from(LoginEvent)) == 0


def test_non_ascii_code_at_the_code_step_is_a_format_error(app, client, make_user):
    user = make_user()
    enable_2fa(app, user)
    token = csrf_token(client, "/masuk")
    assert client.post("/masuk", data={"csrf_token": token, "email": user.email,
                                       "password": PASSWORD}).status_code == 303
    token = csrf_token(client, "/masuk/kode")
    response = client.post("/masuk/kode", data={"csrf_token": token, "code": FULL_WIDTH})
    assert response.status_code == 422
    assert str(messages.FIELD_BAD_CODE) in text_of(response)
    with app.app_context():
        assert db.session.scalars(db.select(LoginEvent.result)).all() == ["code_required"]


def raw_form(fields, token, value):
    # Percent-encoded bytes that are no UTF-8 text: a CESU-8 surrogate and a lone 0xFF.
    parts = [f"csrf_token={token}"] + [f"{name}={value}" for name in fields]
    return "&".join(parts).encode("ascii")


FORMS = [
    # (path, signed in, fields)
    ("/masuk", False, ("email", "password")),
    ("/banding", False, ("name", "email", "phone", "reason")),
    ("/akun/kata-sandi", True, ("current_password", "new_password", "confirm_password")),
    ("/akun/token", True, ("name",)),
    ("/akun/perangkat", True, ("device_name",)),
    ("/akun/dua-langkah/kode-pemulihan", True, ("password",)),
    ("/akun/dua-langkah/nonaktifkan", True, ("password",)),
    ("/admin/blokir", True, ("ip", "device_id", "local_ip", "reason", "minutes")),
    ("/admin/izin", True, ("ip", "device_id", "reason", "minutes")),
]


@pytest.mark.parametrize("value", ["%ED%A0%80", "abc%FFdef", "%C0%AF", "%F4%90%80%80"])
@pytest.mark.parametrize("path, signed_in, fields", FORMS, ids=[path for path, *_ in FORMS])
def test_forms_take_undecodable_bytes_without_a_server_error(client, make_user, path, signed_in,
                                                            fields, value):
    if signed_in:
        token = sign_in_session(client, make_user(role="admin"))
    else:
        token = csrf_token(client, path)
    response = client.post(path, data=raw_form(fields, token, value),
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code < 500, text_of(response)[:500]
    assert response.mimetype == "text/html"


@pytest.fixture(scope="module")
def proxied(app):
    """The same database behind one trusted proxy (GUARDSVC_PROXY_COUNT=1)."""
    return create_app({"TESTING": True, "PROXY_COUNT": 1})


@pytest.mark.parametrize("forwarded", ["garbage", "0.0.0.0.0", "203.0.113.7:port", "[2001:db8::1",
                                       "[2001:db8::1]x", "", "203.0.113.7, garbage"])
@pytest.mark.parametrize("path, wants_json", [("/api/auth/tokens", True), ("/masuk", False),
                                              ("/api/guard/unblock-tickets/submit", True),
                                              ("/banding", False), ("/healthz", True)])
def test_unreadable_forwarded_address_is_a_bad_request(proxied, path, wants_json, forwarded):
    with proxied.test_client() as client:
        response = client.get(path, headers={"X-Forwarded-For": forwarded})
    if forwarded == "":  # no entry at all: the peer is the client
        assert response.status_code != 400
        return
    assert response.status_code == 400
    if wants_json:
        assert response.get_json() == {"success": False, "message": messages.FORWARDED_ADDRESS_INVALID}
    else:
        assert str(messages.FORWARDED_ADDRESS_INVALID) in text_of(response)


@pytest.mark.parametrize("forwarded, address", [("203.0.113.7:5123", "203.0.113.7"),
                                                ("[2001:db8::1]:443", "2001:db8::1"),
                                                ("::ffff:203.0.113.8", "203.0.113.8"),
                                                ("198.51.100.1, 203.0.113.9", "203.0.113.9")])
def test_forwarded_entry_with_a_port_counts_as_its_address(proxied, make_user, forwarded, address):
    user = make_user()
    with proxied.test_client() as client:
        response = client.post("/api/auth/tokens", json={"email": user.email, "password": PASSWORD},
                               headers={"X-Forwarded-For": forwarded})
    assert response.status_code == 201
    with proxied.app_context():
        assert db.session.scalars(db.select(LoginEvent.ip_address)).all() == [address]
