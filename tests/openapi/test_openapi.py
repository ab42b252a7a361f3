"""The API document: valid OpenAPI 3, sound, complete, and true to what the server does.

What the server answers is also checked against the document by schemathesis
on a live server (test_openapi_live.py); these tests hold the structure and
the cross-cutting promises (guard, roles, CSRF, rate-limit headers, servers).
"""
import copy

import pytest
from openapi_spec_validator import validate

from guardsvc import create_app
from guardsvc.openapi.document import registered_operations
from tests.support.blocks_helpers import BLOCKED_IP, PROXY_SECRET, from_ip, sign_in_session
from tests.support.openapi_checks import document_problems, json_routes, operations, template

# What the proxy sends as X-Guardsvc-Secret to the apps these tests build (at least 32 characters).
PROXIED_SECRET = "rahasia-proksi-yang-panjang-0123456789"

PATH_VALUES = {"ticketNumber": "TKT-00000000", "reference": "BLK-00000000", "id": "2147483647"}


@pytest.fixture()
def document(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.get_json()


def concrete(path):
    """A documented path with its parameters filled in."""
    for name, value in PATH_VALUES.items():
        path = path.replace("{" + name + "}", value)
    assert "{" not in path, f"no test value for a parameter of {path}"
    return path


def by_operation_id(document):
    return {operation["operationId"]: (path, method, operation) for path, method, operation in operations(document)}


def test_document_is_valid_openapi(document):
    validate(document)
    assert document["openapi"].startswith("3.")


def test_document_is_sound_and_complete(app, document):
    assert document_problems(document, json_routes(app)) == []


def test_every_json_route_is_documented(app, document):
    documented = {(method, template(path)) for path, method, _ in operations(document)}
    assert json_routes(app) <= documented
    assert ("get", "/api/guard/unblock-tickets/check/{}") in documented
    assert {("get", "/healthz"), ("get", "/readyz")} <= documented


def test_envelopes_and_payloads_have_different_names(document):
    schemas = document["components"]["schemas"]
    envelope = schemas["TicketStatusResponse"]
    assert envelope["properties"]["data"] == {"$ref": "#/components/schemas/TicketStatus"}
    assert set(schemas["TicketStatus"]["properties"]) == {
        "ticket_number", "status", "created_at", "resolved_at", "admin_notes"}
    for name in ("TicketSubmitted", "TicketDetail", "BlockCheck", "TrustCheck"):
        assert schemas[name + "Response"]["properties"]["data"] == {"$ref": f"#/components/schemas/{name}"}
        assert "data" not in schemas[name]["properties"]


def test_a_decision_documents_what_it_opened(document):
    schemas = document["components"]["schemas"]
    decided = schemas["TicketDecidedResponse"]["properties"]["data"]["$ref"].rsplit("/", 1)[1]
    properties = schemas[decided]["properties"]
    assert properties["lifted_blocks"]["type"] == "array"
    entry = properties["allow_entries"]["items"]["$ref"].rsplit("/", 1)[1]
    assert set(schemas[entry]["properties"]) == {"id", "target", "device_id", "expires_at"}
    assert schemas["TicketDecision"]["properties"]["lift_ranges"]["type"] == "boolean"
    detail = schemas["TicketDetail"]["properties"]
    assert detail["name"]["nullable"] and detail["personal_data_erased_at"]["nullable"]


def _broken(document, change):
    broken = copy.deepcopy(document)
    change(broken)
    return broken


def _self_reference(document):
    """The bug an outside review found: the envelope's ``data`` was the envelope itself."""
    document["components"]["schemas"]["TicketSubmittedResponse"]["properties"]["data"] = {
        "$ref": "#/components/schemas/TicketSubmittedResponse"}


def _dangling_ref(document):
    document["components"]["schemas"]["TicketStatusResponse"]["properties"]["data"] = {
        "$ref": "#/components/schemas/TicketStatusPayload"}


def _unused_component(document):
    document["components"]["schemas"]["Leftover"] = {"type": "object"}


def _undocumented_route(document):
    del document["paths"]["/api/guard/unblock-tickets/check/{ticketNumber}"]


def _duplicate_operation_id(document):
    document["paths"]["/readyz"]["get"]["operationId"] = "checkLiveness"


def _no_server_error(document):
    del document["paths"]["/healthz"]["get"]["responses"]["500"]


@pytest.mark.parametrize("change,expected", [
    (_self_reference, ["components/schemas/TicketSubmittedResponse refers to itself",
                       "components/schemas/TicketSubmitted is never used"]),
    (_dangling_ref, ["$ref #/components/schemas/TicketStatusPayload does not resolve"]),
    (_unused_component, ["components/schemas/Leftover is never used"]),
    (_undocumented_route, ["GET /api/guard/unblock-tickets/check/{} is not documented"]),
    (_duplicate_operation_id, ["operationId 'checkLiveness' is used more than once"]),
    (_no_server_error, ["GET /healthz: 500 is not listed"]),
])
def test_the_check_rejects_a_broken_document(app, document, change, expected):
    problems = document_problems(_broken(document, change), json_routes(app))
    for text in expected:
        assert any(text in problem for problem in problems), (text, problems)


def test_a_self_reference_two_components_deep_is_caught(app, document):
    def loop(document):
        schemas = document["components"]["schemas"]
        schemas["TicketStatus"]["properties"]["again"] = {"$ref": "#/components/schemas/TicketStatusResponse"}

    problems = document_problems(_broken(document, loop), json_routes(app))
    assert "components/schemas/TicketStatus refers to itself through other components" in problems


def test_operation_ids_and_tags(document):
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(ids) == len(set(ids))
    assert {"submitTicket", "checkTicket", "saveMyIp"} <= set(ids)
    tags = {tag["name"] for tag in document["tags"]}
    assert {"Banding", "IP terpercaya", "Token akses", "Sistem"} <= tags


def test_servers_come_from_the_request(client, app, monkeypatch):
    document = client.get("/api/openapi.json", base_url="https://guard.example.org:8443").get_json()
    assert document["servers"] == [{"url": "https://guard.example.org:8443"}]
    monkeypatch.setitem(app.config, "BASE_URL_CONFIGURED", True)
    monkeypatch.setitem(app.config, "BASE_URL", "https://publik.example.org")
    document = client.get("/api/openapi.json").get_json()
    assert document["servers"] == [{"url": "https://publik.example.org"}]


def _call(client, path, method, **kwargs):
    return client.open(concrete(path), method=method.upper(), **kwargs)


def test_blocked_403_is_documented_exactly_where_the_guard_runs(app, document, make_block):
    # Forward auth answers its proxy only: every call presents the proxy's secret (the others ignore it).
    client = create_app({"TESTING": True, "FORWARD_AUTH_SECRET": PROXIED_SECRET}).test_client()
    make_block(network=BLOCKED_IP, reason="Spam")
    for path, method, operation in operations(document):
        forbidden = operation["responses"].get("403", {}).get("content", {}).get("application/json", {})
        documented = "#/components/schemas/BlockedError" in str(forbidden.get("schema"))
        response = _call(client, path, method, headers={"X-Guardsvc-Secret": PROXIED_SECRET},
                         **from_ip(BLOCKED_IP))
        body = response.get_json(silent=True) or {}
        assert (response.status_code == 403 and body.get("blocked") is True) == documented, (
            f"{method.upper()} {path}: answered {response.status_code} {body}, 403 blocked documented: {documented}")


def test_roles_in_the_document_are_the_roles_the_server_enforces(app, client, document, bearer):
    tokens = {role: bearer(role)[1] for role in ("user", "admin", "service")}
    located = by_operation_id(document)
    for registered in registered_operations(app):
        path, method, operation = located[registered.operation_id]
        # No bearer identity; the proxy's secret, which forward auth requires and the others ignore.
        anonymous = _call(client, path, method, headers={"X-Guardsvc-Secret": PROXY_SECRET})
        if registered.roles is None:
            assert operation["security"] == [] and anonymous.status_code != 401, registered.operation_id
            continue
        assert anonymous.status_code == 401, registered.operation_id
        assert anonymous.headers["WWW-Authenticate"].startswith("Bearer")
        for role, headers in tokens.items():
            status = _call(client, path, method, headers=headers).status_code
            if role in registered.roles:
                assert status not in (401, 403), (registered.operation_id, role, status)
            else:
                assert status == 403 and "403" in operation["responses"], (registered.operation_id, role, status)


def test_cookie_sessions_need_the_csrf_header_on_unsafe_operations(app, document, make_user):
    admin = make_user(role="admin")
    unsafe = [(path, method, operation) for path, method, operation in operations(document)
              if operation["security"] and method in ("post", "delete")]
    assert unsafe
    for path, method, operation in unsafe:
        client = app.test_client()
        sign_in_session(client, admin)
        assert {"sessionCookie": [], "csrfToken": []} in operation["security"]
        response = _call(client, path, method)
        assert response.status_code == 400 and "CSRF" in response.get_json()["message"], (path, method)


def test_rate_limit_headers_are_documented_exactly_where_limits_apply(document):
    from guardsvc import create_app

    client = create_app({"TESTING": True, "RATELIMIT_ENABLED": True}).test_client()
    limited = []
    for path, method, operation in operations(document):
        documented = all("X-RateLimit-Limit" in response.get("headers", {})
                         for response in operation["responses"].values())
        response = _call(client, path, method)
        assert ("X-RateLimit-Limit" in response.headers) == documented, (method, path)
        if documented:
            limited.append(operation["operationId"])
            assert "429" in operation["responses"]
    assert {"submitTicket", "checkTicket", "createToken"} <= set(limited)


def _build_with(app, *operations):
    import guardsvc.openapi.document as openapi

    with app.app_context():
        return openapi.build_document(app, operations)


def _status_check(envelope, endpoint="appeals_api.check"):
    from guardsvc.web.operations import Operation, Tag

    return Operation("checkTicket", "Cek", Tag("Banding", "Banding."), {200: envelope}, endpoint=endpoint)


def test_an_envelope_is_never_named_like_a_payload(app):
    from guardsvc.appeals.schemas import TicketStatusSchema
    from guardsvc.web.operations import Envelope

    with pytest.raises(ValueError, match="end with 'Response'"):
        _build_with(app, _status_check(Envelope(TicketStatusSchema, name="TicketStatus")))
    document = _build_with(app, _status_check(Envelope(TicketStatusSchema)))
    assert set(document["components"]["schemas"]) >= {"TicketStatus", "TicketStatusResponse"}


def test_two_schemas_under_one_name_are_refused(app):
    from marshmallow import Schema, fields

    from guardsvc.web.operations import Envelope

    first = type("TicketStatusSchema", (Schema,), {"a": fields.String()})
    second = type("TicketStatusSchema", (Schema,), {"b": fields.String()})
    with pytest.raises(ValueError, match="both be named 'TicketStatus'"):
        _build_with(app, _status_check(Envelope(first, extra={"other": fields.Nested(second)})))
    payload = type("TicketStatusResponseSchema", (Schema,), {"a": fields.String()})
    with pytest.raises(ValueError, match="kept for envelopes"):
        _build_with(app, _status_check(Envelope(payload, name="TicketResponse")))


def test_a_declaration_must_match_one_route_once(app):
    from guardsvc.appeals.schemas import TicketStatusSchema
    from guardsvc.web.operations import Envelope

    operation = _status_check(Envelope(TicketStatusSchema))
    with pytest.raises(LookupError, match="no route for endpoint 'appeals_api.gone'"):
        _build_with(app, _status_check(Envelope(TicketStatusSchema), endpoint="appeals_api.gone"))
    with pytest.raises(ValueError, match="described twice"):
        _build_with(app, operation, operation)


def test_a_failure_of_several_shapes_accepts_an_answer_that_fits_more_than_one(document):
    """anyOf, never oneOf: a cooldown 429 without its ticket number, or the limiter's 429, is also an Error."""
    from jsonschema import Draft4Validator

    shared = {"components": document["components"]}
    several = [(operation["operationId"], status, answer["content"]["application/json"]["schema"])
               for _, _, operation in operations(document) for status, answer in operation["responses"].items()
               if "content" in answer and set(answer["content"]["application/json"]["schema"]) & {"oneOf", "anyOf"}]
    assert several and not [entry for entry in several if "oneOf" in entry[2]], several
    _, _, submit = by_operation_id(document)["submitTicket"]
    schema = {**submit["responses"]["429"]["content"]["application/json"]["schema"], **shared}
    for body in ({"success": False, "message": "Terlalu banyak permintaan."},
                 {"success": False, "message": "Tiket masih menunggu.", "ticket_number": "TKT-0A1B2C3D"}):
        assert not list(Draft4Validator(schema).iter_errors(body)), body


def test_every_operation_documents_the_unreadable_forwarded_address(document):
    """Every request reads the client's address first: the 400 for X-Forwarded-For is everyone's."""
    missing = [f"{method.upper()} {path}" for path, method, operation in operations(document)
               if "X-Forwarded-For" not in operation["responses"].get("400", {}).get("description", "")]
    assert not missing, missing
