"""The API document says what each operation accepts: a request it calls valid is not refused for its shape.

Requests an independent schemathesis run found refused (422) although the document admitted them
are now outside the document, and what the document admits is taken: "one of these parameters" (a
query given as one object whose schema says the rule), an address's pattern (the one grammar,
guardsvc.web.ip_grammar), a payload's encoding and bounds. Requests are checked against the
document as a generated client would, with JSON Schema.
"""
import copy

import pytest
from jsonschema import Draft4Validator

ALLOWS = "/api/admin/allows"
BLOCKS = "/api/admin/blocks"
CHECK = "/api/guard/blocks/check"
RELEASE = "/api/guard/self-release"
ZEROS = "0" * 63  # what the reported run sent as an allow entry's `ip`


@pytest.fixture(scope="module")
def document(app):
    with app.test_client() as client:
        return client.get("/api/openapi.json").get_json()


def _json_schema(node):
    """OpenAPI 3.0's ``nullable`` as JSON Schema: null is admitted beside the schema."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    return {"anyOf": [converted, {"type": "null"}]} if node.get("nullable") else converted


def admits(document, schema, value):
    """Whether ``schema`` (a piece of ``document``) admits ``value``."""
    root = {**_json_schema(copy.deepcopy(schema)), "components": _json_schema(document["components"])}
    return Draft4Validator(root).is_valid(value)


def body_schema(document, path, method="post"):
    return document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]


def query_schema(document, path):
    (parameter,) = [p for p in document["paths"][path]["get"]["parameters"] if p["in"] == "query"]
    return parameter


def test_the_host_check_says_that_it_needs_an_address_or_a_device(document):
    parameter = query_schema(document, CHECK)
    # One object, still sent as `?ip=...&device_id=...&local_ip=...`, whose schema can say the rule.
    assert (parameter["style"], parameter["explode"], parameter["required"]) == ("form", True, True)
    schema = parameter["schema"]
    assert not admits(document, schema, {"local_ip": "0.0.0.0"})  # what the reported run sent
    assert not admits(document, schema, {"ip": "   ", "local_ip": "0.0.0.0"})  # blank is no address
    assert admits(document, schema, {"ip": "192.0.2.1"})
    assert admits(document, schema, {"device_id": "laptop-1", "local_ip": "10.0.0.7"})
    assert admits(document, schema, {"ip": "2001:db8::1", "device_id": "laptop-1"})
    assert "422" in document["paths"][CHECK]["get"]["responses"]


def test_the_host_check_takes_what_the_document_admits(client, bearer):
    _, service = bearer(role="service")
    assert client.get(CHECK, query_string={"local_ip": "0.0.0.0"}, headers=service).status_code == 422
    for query in ({"ip": "192.0.2.1"}, {"device_id": "laptop-1", "local_ip": "10.0.0.7"},
                  {"ip": " 2001:DB8::1%eth0 ", "device_id": ""}, {"ip": "::ffff:192.0.2.1"}):
        assert client.get(CHECK, query_string=query, headers=service).status_code == 200, query


@pytest.mark.parametrize("path", [ALLOWS, BLOCKS])
def test_an_address_or_range_is_the_grammar_of_the_one_parser(document, path):
    schema = body_schema(document, path)
    assert not admits(document, schema, {"ip": ZEROS})  # what the reported run sent
    for refused in ("010.0.0.1", "10.0.0.0/33", "2001:db8::/129", "fe80::%eth0/64", "1.2.3.4.5", "::1::"):
        assert not admits(document, schema, {"ip": refused}), refused
    for admitted in ("10.0.0.0/8", "10.0.0.0/255.0.0.0", " 192.0.2.7 ", "2001:db8::/32", "::ffff:10.0.0.0/104"):
        assert admits(document, schema, {"ip": admitted}), admitted
    # Exactly one target; an expiry given one way at most.
    assert not admits(document, schema, {"ip": "10.0.0.0/8", "device_id": "laptop-1"})
    assert not admits(document, schema, {})
    assert admits(document, schema, {"ip": None, "device_id": "laptop-1", "minutes": None})
    assert not admits(document, schema, {"device_id": "laptop-1", "minutes": 5, "expires_at": "2100-01-01T00:00:00Z"})
    assert admits(document, schema, {"device_id": "laptop-1", "minutes": 5, "expires_at": None})
    operation = document["paths"][path]["post"]
    assert operation["requestBody"]["required"] is True  # an empty body names no target
    assert "bit host" in operation["responses"]["422"]["description"]


def test_an_allow_entry_the_document_admits_is_made(client, bearer):
    _, admin = bearer(role="admin")
    refused = client.post(ALLOWS, json={"ip": ZEROS}, headers=admin)
    assert refused.status_code == 422
    for target in ({"ip": "\u3000192.0.2.0/255.255.255.0 "}, {"ip": "2001:db8:0:0::/64", "device_id": ""},
                   {"device_id": "laptop-1", "ip": None, "minutes": 5}):
        assert client.post(ALLOWS, json=target, headers=admin).status_code == 201, target
    # The rule the document says in words: a range names its first address.
    host_bits = client.post(ALLOWS, json={"ip": "192.0.2.1/24"}, headers=admin)
    assert host_bits.status_code == 422 and host_bits.get_json()["errors"]["ip"]


def test_a_proof_of_work_is_base64(document, client):
    schema = body_schema(document, RELEASE)
    assert not admits(document, schema, {"altcha": "0"})  # what the reported run sent
    for refused in ("", "YWJj ", "YWJjZA", "YWJjZA=", "eyJ9!"):
        assert not admits(document, schema, {"altcha": refused}), refused
    assert admits(document, schema, {"altcha": "eyJjaGFsbGVuZ2UiOnt9fQ=="})
    # Base64 that proves nothing is refused as a proof (403, `errors.altcha`), not as a malformed field.
    responses = document["paths"][RELEASE]["post"]["responses"]
    assert "base64" in responses["403"]["description"] and "base64" in responses["422"]["description"]
