"""One definition of "JSON door" and "never guarded": marks on the views, read by every hook."""
import pytest

from guardsvc import create_app
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.errors import NotFound
from tests.support.blocks_helpers import BLOCKED_IP, from_ip

DEVICE_COOKIE = "guardsvc_device"


def _device_cookie_set(response):
    return any(value.startswith(f"{DEVICE_COOKIE}=") for value in response.headers.getlist("Set-Cookie"))


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/api/openapi.json"])
def test_probes_and_the_api_document_are_json_and_get_no_device_cookie(client, path):
    response = client.get(path)
    assert response.status_code == 200 and response.is_json
    assert not _device_cookie_set(response)


def test_static_files_get_no_device_cookie(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert not _device_cookie_set(response)


def test_pages_give_a_browser_its_device_cookie(client):
    response = client.get("/banding")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert _device_cookie_set(response)


@pytest.mark.parametrize("method,path,status", [
    ("POST", "/healthz", 405),
    ("DELETE", "/readyz", 405),
    ("PUT", "/api/guard/unblock-tickets/submit", 405),
    ("GET", "/api/tidak-ada", 404),
    ("GET", "/api", 404),
])
def test_failures_of_json_doors_and_unknown_api_urls_answer_json(client, method, path, status):
    response = client.open(path, method=method)
    assert response.status_code == status
    assert response.is_json and response.get_json()["success"] is False
    assert not _device_cookie_set(response)


def test_unknown_page_urls_answer_html(client):
    response = client.get("/halaman-yang-tidak-ada")
    assert response.status_code == 404 and response.mimetype == "text/html"


@pytest.fixture()
def marked_app(app):
    """A second app on the same database with routes outside /api/ that carry the marks."""
    probe = create_app({"TESTING": True})

    @probe.get("/probe/json")
    @json_door
    def json_probe():
        raise NotFound()

    @probe.get("/probe/free")
    @never_guarded
    def free_probe():
        return "ok"

    @probe.get("/probe/guarded")
    def guarded_probe():
        return "ok"

    return probe


def test_the_mark_not_the_url_makes_a_json_door(marked_app):
    response = marked_app.test_client().get("/probe/json")
    assert response.status_code == 404 and response.is_json
    assert not _device_cookie_set(response)


def test_the_mark_not_the_url_lets_a_blocked_client_through(marked_app, make_block):
    make_block(network=f"{BLOCKED_IP}/32")
    client = marked_app.test_client()
    assert client.get("/probe/free", **from_ip(BLOCKED_IP)).status_code == 200
    assert client.get("/probe/guarded", **from_ip(BLOCKED_IP)).status_code == 403


def test_a_wrong_method_on_a_never_guarded_route_is_not_answered_blocked(client, make_block):
    make_block(network=f"{BLOCKED_IP}/32")
    response = client.delete("/api/guard/unblock-tickets/submit", **from_ip(BLOCKED_IP))
    assert response.status_code == 405 and "blocked" not in response.get_json()


def test_readyz_is_not_ready_while_the_schema_is_behind_the_code(app, client):
    from sqlalchemy import text

    from guardsvc.extensions import db

    assert client.get("/readyz").status_code == 200
    with app.app_context():
        current = db.session.scalar(text("SELECT version_num FROM alembic_version"))
        db.session.execute(text("UPDATE alembic_version SET version_num = '0017_crowdsec'"))
        db.session.commit()
    try:
        behind = client.get("/readyz")
        assert behind.status_code == 503 and behind.get_json()["success"] is False
        assert behind.headers["Retry-After"] == "5"
    finally:
        with app.app_context():
            db.session.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": current})
            db.session.commit()
    assert client.get("/readyz").status_code == 200
