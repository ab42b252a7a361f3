"""Functional tests of /masuk, /keluar and the redirect to sign-in."""
import re

import pytest
from sqlalchemy import select

from guardsvc.extensions import db

from tests.support.factories import PASSWORD
from tests.support.pages_support import csrf_token, post_form, sign_in, text_of

FAILURE = "E-mail atau kata sandi salah."


def attempt(client, email, password, **extra):
    return post_form(client, "/masuk", {"email": email, "password": password, **extra}, page="/masuk")


def failure_notice(html):
    return re.search(r'<div class="notice notice-error" role="alert" id="gagal-masuk"><p>(.*?)</p>', html).group(1)


def test_sign_in_page(client):
    html = text_of(client.get("/masuk"))
    assert 'autocomplete="current-password"' in html
    assert '<a href="/masuk">Masuk</a>' in html


def test_sign_in_then_account_and_header_state(client, make_user):
    user = make_user(name="Sari Dewi")
    response = sign_in(client, user)
    assert response.headers["Location"] == "/akun"
    html = text_of(client.get("/akun"))
    assert "Sari Dewi" in html
    assert '<button type="submit" class="nav-button">Keluar</button>' in html
    assert 'href="/admin"' not in html


def test_admin_sees_admin_link(client, make_user):
    sign_in(client, make_user(role="admin"))
    assert '<a href="/admin">Administrasi</a>' in text_of(client.get("/"))


def test_unknown_email_and_wrong_password_answer_alike(client, make_user):
    user = make_user()
    unknown = attempt(client, "nobody@example.com", PASSWORD)
    wrong = attempt(client, user.email, "salah-sekali")
    assert unknown.status_code == wrong.status_code == 401
    assert failure_notice(text_of(unknown)) == failure_notice(text_of(wrong)) == FAILURE
    assert 'value="nobody@example.com"' in text_of(unknown)
    assert "salah-sekali" not in text_of(wrong)
    assert client.get("/akun").status_code == 302


def test_missing_fields_are_field_errors(client):
    response = attempt(client, "", "")
    assert response.status_code == 422
    assert text_of(response).count("Wajib diisi.") >= 2


def test_service_account_cannot_use_web_pages(client, make_user):
    service = make_user(role="service")
    response = attempt(client, service.email, PASSWORD)
    assert response.status_code == 403
    assert "Akun layanan tidak dapat masuk" in text_of(response)
    assert client.get("/akun").status_code == 302


def test_account_page_redirects_anonymous_to_sign_in_with_next(client):
    response = client.get("/akun")
    assert response.status_code == 302
    assert response.headers["Location"] == "/masuk?next=/akun"
    assert 'name="next" value="/akun"' in text_of(client.get(response.headers["Location"]))


def test_local_next_is_followed(client, make_user):
    user = make_user()
    response = attempt(client, user.email, PASSWORD, next="/banding/cek?tiket=TKT-00000000")
    assert response.headers["Location"] == "/banding/cek?tiket=TKT-00000000"


@pytest.mark.parametrize("target", ["//evil.com", "https://evil.com", "/\\evil.com", "\\\\evil.com",
                                    "javascript:alert(1)", "/\t/evil.com", "evil.com", "///evil.com"])
def test_next_never_leaves_the_site(client, make_user, target):
    user = make_user()
    assert 'name="next"' not in text_of(client.get("/masuk", query_string={"next": target}))
    response = attempt(client, user.email, PASSWORD, next=target)
    assert response.status_code == 303
    assert response.headers["Location"] == "/akun"


def test_signed_in_visit_to_sign_in_follows_only_safe_next(client, make_user):
    sign_in(client, make_user())
    assert client.get("/masuk?next=//evil.com").headers["Location"] == "/akun"
    assert client.get("/masuk?next=/banding").headers["Location"] == "/banding"


def test_stale_sign_in_form_keeps_the_email_never_the_password(client, make_user):
    user = make_user()
    response = client.post("/masuk", data={"email": user.email, "password": PASSWORD, "next": "/banding"})
    assert response.status_code == 400
    html = text_of(response)
    assert "Sesi formulir sudah kedaluwarsa" in html and "CSRF" not in html
    assert f'value="{user.email}"' in html and PASSWORD not in html
    assert 'name="next" value="/banding"' in html
    with client.session_transaction() as session:
        assert "_user_id" not in session


def test_sign_in_starts_a_fresh_session(app, client, make_user):
    from guardsvc.sessions.models import UserSession
    from guardsvc.sessions.service import hash_key

    user = make_user()
    old_token = csrf_token(client, "/masuk")
    with client.session_transaction() as session:
        session["planted"] = "from before sign-in"
    client.post("/masuk", data={"csrf_token": old_token, "email": user.email, "password": PASSWORD})
    with client.session_transaction() as session:
        assert "planted" not in session
        key = session["_user_id"]
    with app.app_context():
        # The cookie names a session record of this user by a key stored only as its hash.
        record = db.session.scalar(select(UserSession).where(UserSession.key_hash == hash_key(key)))
        assert record.user_id == user.id and key not in (record.key_hash, str(user.id))
    # The token of the old session no longer authorises anything.
    assert client.post("/akun/token", data={"csrf_token": old_token}).status_code == 400


def test_sign_out_is_a_post_with_csrf(client, make_user):
    sign_in(client, make_user())
    assert client.get("/keluar").status_code == 405
    assert client.post("/keluar").status_code == 400
    assert client.get("/akun").status_code == 200
    response = post_form(client, "/keluar", page="/akun")
    assert response.status_code == 303
    assert response.headers["Location"] == "/"
    assert "Anda sudah keluar." in text_of(client.get("/"))
    assert client.get("/akun").status_code == 302
