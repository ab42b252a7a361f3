"""The database goes away: every answer is a 503 in the service's own words, and it comes back by itself.

A database that cannot be reached at all needs no server: a PostgreSQL
address nobody listens on. Recovery needs a real one behind a proxy that can
cut it (PostgreSQL runs only).
"""
import pytest

from guardsvc import create_app
from tests.conftest import TEST_DATABASE_URL
from tests.support.faults_support import DatabaseProxy, postgres_target
from tests.support.live import free_port
from tests.support.pages_support import sign_in_session, text_of

pytestmark = pytest.mark.faults
needs_postgres = pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgres"),
                                    reason="needs a PostgreSQL test database to cut")
PAGES = ["/", "/banding", "/banding/cek", "/akun", "/admin"]
API = ["/api/admin/tickets", "/api/auth/tokens", "/readyz"]
OUTAGE_TITLE = "Layanan sedang terganggu"


@pytest.fixture(scope="module")
def unreachable_app(app):
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/guardsvc"
    return create_app({"SQLALCHEMY_DATABASE_URI": url})


def signed_in_client(app, user_key="1:0"):
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = user_key
        session["_fresh"] = True
    return client


@pytest.mark.parametrize("path", PAGES)
def test_pages_answer_the_outage_page_to_signed_in_users(unreachable_app, path):
    response = signed_in_client(unreachable_app).get(path)
    assert response.status_code == 503
    assert response.mimetype == "text/html"
    assert response.headers["Retry-After"] == "5"
    html = text_of(response)
    assert OUTAGE_TITLE in html and "Kode kesalahan untuk petugas bantuan: 503" in html
    assert "Traceback" not in html and "psycopg" not in html


@pytest.mark.parametrize("path", API)
def test_json_doors_answer_json_503(unreachable_app, path):
    for headers in ({}, {"Authorization": "Bearer some-token"}):
        response = signed_in_client(unreachable_app).get(path, headers=headers)
        assert response.status_code == 503
        assert response.get_json()["success"] is False
        assert "psycopg" not in response.get_json()["message"]


def test_form_post_answers_503_too(unreachable_app):
    client = signed_in_client(unreachable_app)
    response = client.post("/banding", data={"name": "Budi"})
    # CSRF is checked first; the stale form it answers with needs the database too.
    assert response.status_code == 503
    assert "Traceback" not in text_of(response)


def test_liveness_does_not_need_the_database(unreachable_app):
    response = signed_in_client(unreachable_app).get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"success": True, "status": "ok"}


@pytest.fixture()
def proxied_app(app):
    proxy = DatabaseProxy(postgres_target(TEST_DATABASE_URL))
    yield proxy, create_app({"SQLALCHEMY_DATABASE_URI": proxy.url_for(app.config["SQLALCHEMY_DATABASE_URI"])})
    proxy.close()


@needs_postgres
def test_service_recovers_without_a_restart(proxied_app, make_user):
    proxy, app = proxied_app
    user = make_user(role="admin")
    client = app.test_client()
    sign_in_session(client, user)
    assert client.get("/readyz").status_code == 200
    assert client.get("/akun").status_code == 200

    proxy.cut()
    for path in ("/readyz", "/akun", "/admin", "/api/admin/tickets"):
        assert client.get(path).status_code == 503, path
    assert client.get("/healthz").status_code == 200

    proxy.restore()
    # The pool's pre-ping notices the dead connections and opens new ones.
    assert client.get("/readyz").status_code == 200
    page = client.get("/akun")
    assert page.status_code == 200 and user.name in text_of(page)
    assert client.get("/admin").status_code == 200


def test_bare_page_when_even_the_layout_cannot_be_rendered(unreachable_app, monkeypatch):
    from guardsvc import messages
    from guardsvc.web import errors

    def broken_layout(*_args, **_kwargs):
        raise RuntimeError("layout broken")

    monkeypatch.setattr(errors, "render_template", broken_layout)
    response = signed_in_client(unreachable_app).get("/akun")
    assert response.status_code == 503 and response.mimetype == "text/html"
    assert str(messages.UNAVAILABLE) in text_of(response) and "layout broken" not in text_of(response)
