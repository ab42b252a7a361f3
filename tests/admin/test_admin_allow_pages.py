"""/admin/izin: administrators add and remove allow entries from a page."""
import re

from guardsvc.extensions import db
from tests.support.blocks_helpers import from_ip, sign_in_session
from tests.support.pages_support import post_form, text_of

import pytest


@pytest.fixture()
def admin_client(client, make_user):
    sign_in_session(client, make_user(role="admin"))
    return client


def test_add_and_remove_an_allow_entry_from_the_page(admin_client, app, make_block):
    make_block(network="203.0.113.0/24")
    guarded = app.test_client()
    assert guarded.get("/api/auth/tokens", **from_ip("203.0.113.9")).status_code == 403
    response = post_form(admin_client, "/admin/izin", {"ip": "203.0.113.9", "reason": "Mitra <b>"},
                         page="/admin/izin")
    assert response.status_code == 303
    html = text_of(admin_client.get("/admin/izin"))
    assert "203.0.113.9" in html and "Mitra &lt;b&gt;" in html and "Aktif" in html
    assert guarded.get("/api/auth/tokens", **from_ip("203.0.113.9")).status_code == 401
    entry_id = re.search(r'id="izin-(\d+)"', html).group(1)
    removed = post_form(admin_client, f"/admin/izin/{entry_id}/hapus", {}, page="/admin/izin")
    assert removed.status_code == 303
    assert "Dihapus" in text_of(admin_client.get("/admin/izin"))
    assert guarded.get("/api/auth/tokens", **from_ip("203.0.113.9")).status_code == 403
    again = post_form(admin_client, f"/admin/izin/{entry_id}/hapus", {}, page="/admin/izin")
    assert again.status_code == 303
    assert "sudah tidak aktif" in text_of(admin_client.get("/admin/izin"))


def test_form_errors_and_csrf(admin_client):
    response = post_form(admin_client, "/admin/izin", {"ip": "bukan-ip"}, page="/admin/izin")
    assert response.status_code == 422
    assert "Harus berupa alamat IP atau rentang CIDR yang valid." in text_of(response)
    assert admin_client.post("/admin/izin", data={"ip": "10.0.0.1"}).status_code == 400


def test_only_for_administrators(client, make_user):
    assert client.get("/admin/izin").status_code in (302, 303)
    sign_in_session(client, make_user(role="user"))
    assert client.get("/admin/izin").status_code == 403
