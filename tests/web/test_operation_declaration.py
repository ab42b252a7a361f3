"""A JSON view's one declaration (``@operation``): it loads the body and query, checks roles and
spends limits before the view, in that order, and is what the API document says of the view."""
import pytest
from flask import Blueprint

from guardsvc import create_app
from guardsvc.accounts.roles import ADMINS
from guardsvc.extensions import db
from guardsvc.openapi.document import build_document
from guardsvc.ratelimits.limits import EXTENSION, Counters, Limit
from guardsvc.web.doors import json_door
from guardsvc.web.jsonio import ok
from guardsvc.web.operations import Tag, operation
from guardsvc.web.schema_fields import BaseSchema, Text
from tests.support.pages_support import sign_in_session

TAG = Tag("Uji", "Operasi uji.")
FIRST = Limit("RATELIMIT_DECLARED_FIRST", scope="declared-first")
SECOND = Limit("RATELIMIT_DECLARED_SECOND", scope="declared-second")
calls = []


class WordSchema(BaseSchema):
    word = Text(required=True, max_length=10)


class FilterSchema(BaseSchema):
    q = Text(load_default=None, max_length=10)


bp = json_door(Blueprint("declared_test", __name__, url_prefix="/api/declared-test"))


@bp.post("/echo")
@operation("echoWord", "Gema", TAG, {200: None}, roles=ADMINS, body=WordSchema, limits=(FIRST, SECOND))
def echo(data):
    calls.append(data)
    return ok(data=data)


@bp.post("/public")
@operation("publicWord", "Gema publik", TAG, {200: None}, body=WordSchema)
def public(data):
    return ok(data=data)


@bp.get("/filter")
@operation("filterWords", "Saring", TAG, {200: None}, query=FilterSchema)
def filter_words(query):
    return ok(data=query)


@bp.get("/filter-blank")
@operation("filterWordsBlank", "Saring (kosong tetap)", TAG, {200: None}, query=FilterSchema, keep_blank_query=True)
def filter_words_blank(query):
    return ok(data=query)


@bp.get("/plain")
@operation("plainWord", "Polos", TAG, {200: None})
def plain():
    return ok()


@pytest.fixture(scope="module")
def declared_app(app):
    built = create_app({"TESTING": True, "RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": "memory://",
                        "RATELIMIT_DECLARED_FIRST": "100 per minute", "RATELIMIT_DECLARED_SECOND": "3 per minute"})
    built.register_blueprint(bp)
    yield built
    with built.app_context():
        db.engine.dispose()  # its pool's connections go now, not when the process ends


@pytest.fixture()
def declared(declared_app):
    calls.clear()
    declared_app.extensions[EXTENSION] = Counters(declared_app.config)  # every test starts with fresh counts
    return declared_app.test_client()


def test_the_body_is_loaded_and_passed_to_the_view(declared, bearer):
    _, admin = bearer("admin")
    response = declared.post("/api/declared-test/echo", json={"word": "halo", "extra": 1}, headers=admin)
    assert response.status_code == 200 and response.get_json()["data"] == {"word": "halo"}
    assert calls == [{"word": "halo"}]


def test_an_invalid_body_never_reaches_the_view(declared, bearer):
    _, admin = bearer("admin")
    response = declared.post("/api/declared-test/echo", json={"word": "x" * 11}, headers=admin)
    assert response.status_code == 422 and "word" in response.get_json()["errors"]
    assert declared.post("/api/declared-test/echo", data="[1]", content_type="application/json",
                         headers=admin).status_code == 400
    assert calls == []


def test_roles_are_checked_before_the_body(declared, bearer):
    _, user = bearer("user")
    anonymous = declared.post("/api/declared-test/echo", json={"word": "x" * 11})
    assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"].startswith("Bearer")
    assert declared.post("/api/declared-test/echo", json={"word": "x" * 11}, headers=user).status_code == 403
    assert calls == []


def test_limits_are_spent_before_the_body(declared, bearer):
    _, admin = bearer("admin")
    statuses = [declared.post("/api/declared-test/echo", json={}, headers=admin).status_code for _ in range(4)]
    assert statuses == [422, 422, 422, 429]
    refused = declared.post("/api/declared-test/echo", json={"word": "halo"}, headers=admin)
    assert refused.status_code == 429 and refused.headers["X-RateLimit-Limit"] == "3"
    assert calls == []


def test_blank_query_values_are_no_values_unless_kept(declared):
    assert declared.get("/api/declared-test/filter?q=").get_json()["data"] == {"q": None}
    assert declared.get("/api/declared-test/filter?q=kata").get_json()["data"] == {"q": "kata"}
    assert declared.get("/api/declared-test/filter?q=" + "x" * 11).status_code == 422
    assert declared.get("/api/declared-test/filter-blank?q=").get_json()["data"] == {"q": ""}


def test_a_public_operation_asks_no_csrf_token_a_signed_in_one_does(declared_app, make_user):
    client = declared_app.test_client()
    sign_in_session(client, make_user(role="admin"))
    assert client.post("/api/declared-test/public", json={"word": "halo"}).status_code == 200
    refused = client.post("/api/declared-test/echo", json={"word": "halo"})
    assert refused.status_code == 400 and "CSRF" in refused.get_json()["message"]


def test_a_declaration_with_nothing_to_run_adds_no_layer(declared_app):
    assert declared_app.view_functions["declared_test.plain"] is plain
    assert declared_app.view_functions["declared_test.echo"].__wrapped__.__name__ == "echo"


def test_the_document_says_what_the_declaration_enforces(declared_app):
    with declared_app.app_context():
        document = build_document(declared_app)
    echoed = document["paths"]["/api/declared-test/echo"]["post"]
    assert {"401", "403", "422", "429"} <= set(echoed["responses"])
    assert "X-RateLimit-Limit" in echoed["responses"]["200"]["headers"]
    assert echoed["requestBody"]["required"] is True
    assert echoed["description"] == ("Peran yang diizinkan: admin. Selama pembatasan aktif (bawaan), setiap "
                                     "jawaban membawa header X-RateLimit-*.")
    public_word = document["paths"]["/api/declared-test/public"]["post"]
    assert public_word["security"] == [] and "401" not in public_word["responses"]
    filtered = document["paths"]["/api/declared-test/filter"]["get"]
    assert {"in": "query", "name": "q", "required": False} == {
        key: value for key, value in filtered["parameters"][0].items() if key in ("in", "name", "required")}


def test_a_view_must_take_what_its_declaration_loads():
    with pytest.raises(TypeError, match="must take a 'data' parameter"):
        operation("x", "X", TAG, {200: None}, body=WordSchema)(lambda: None)
    with pytest.raises(TypeError, match="must not take a 'query' parameter"):
        operation("x", "X", TAG, {200: None})(lambda query: None)


def test_any_role_is_every_role_an_account_can_have():
    from guardsvc.accounts.roles import ROLES
    from guardsvc.web.operations import ANY_ROLE

    assert set(ANY_ROLE) == set(ROLES)
