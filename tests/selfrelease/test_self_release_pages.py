"""Self-release pages and the desk's side (test client): the offer on the block page, the page, the form,
the confirmation; the administrator's checkbox, switch and figures; the worker's "blocked again"."""
import html
import re
from datetime import timedelta

import pytest

from guardsvc.audit.models import AuditEvent
from guardsvc.blocks.models import Block
from guardsvc.extensions import db
from guardsvc.selfrelease.followup import mark_blocked_again
from guardsvc.selfrelease.models import SelfRelease
from guardsvc.storage import clock
from tests.support.blocks_helpers import from_ip
from tests.support.pages_support import post_form, sign_in_session, text_of
from tests.support.self_release_support import solve

IP = "127.0.14.10"
RANGE = "127.0.14.0/24"
CHALLENGE_ATTRIBUTE = re.compile(r'data-challenge="([^"]+)"')


def browser(client, ip=IP, device="cookie-budi-0001"):
    """``client`` as one browser: its address, and a device cookie like the one the service issues."""
    client.set_cookie("guardsvc_device", device)
    return from_ip(ip)


def page_challenge(page_html):
    import json

    return json.loads(html.unescape(CHALLENGE_ATTRIBUTE.search(page_html).group(1)))


def test_the_block_page_offers_self_release_only_for_a_releasable_block(client, make_block):
    where = browser(client)
    make_block(network=RANGE, self_release=True)
    blocked = client.get("/akun", headers={"Accept": "text/html"}, **where)
    assert blocked.status_code == 403
    assert 'id="buka-sendiri"' in text_of(blocked) and "Buka blokir sendiri" in text_of(blocked)
    make_block(network=f"{IP}/32")  # an administrator's own block on the same client
    again = text_of(client.get("/akun", headers={"Accept": "text/html"}, **where))
    assert 'id="ajukan-banding"' in again and 'id="buka-sendiri"' not in again


def test_the_appeal_form_with_ref_offers_it_too(client, make_block):
    where = browser(client)
    reference = make_block(network=RANGE, self_release=True)
    form = text_of(client.get(f"/banding?ref={reference}", **where))
    assert 'id="banding-buka-sendiri"' in form
    assert 'id="banding-buka-sendiri"' not in text_of(client.get(f"/banding?ref={reference}", **from_ip("127.0.15.1")))


def test_the_page_form_releases_and_confirms_with_the_way_back(client, make_block, app):
    where = browser(client)
    make_block(network=RANGE, self_release=True)
    page = client.get("/lepas-blokir?kembali=/toko/keranjang", **where)
    body = text_of(page)
    assert page.status_code == 200 and "<noscript>" in body and 'id="lepas-banding"' in body
    payload = solve(page_challenge(body))
    done = post_form(client, "/lepas-blokir", {"altcha": payload, "kembali": "/toko/keranjang"},
                     page="/lepas-blokir", **where)
    assert done.status_code == 303 and done.headers["Location"].endswith("/lepas-blokir/selesai")
    confirmation = text_of(client.get("/lepas-blokir/selesai", **where))
    assert 'id="lepas-berhasil"' in confirmation and 'href="/toko/keranjang"' in confirmation
    assert client.get("/akun", **where).status_code in (200, 302)  # no longer blocked: the page itself
    with app.app_context():
        assert db.session.query(SelfRelease).count() == 1


def test_a_refused_proof_shows_why_and_a_fresh_challenge_started_by_hand(client, make_block):
    where = browser(client)
    make_block(network=RANGE, self_release=True)
    refused = post_form(client, "/lepas-blokir", {"altcha": "rusak"}, page="/lepas-blokir", **where)
    body = text_of(refused)
    assert refused.status_code == 422 and 'id="lepas-gagal"' in body and "tidak terbaca" in body
    assert 'data-autostart="false"' in body and CHALLENGE_ATTRIBUTE.search(body)


def test_the_form_needs_its_csrf_token(client, make_block):
    where = browser(client)
    make_block(network=RANGE, self_release=True)
    assert client.post("/lepas-blokir", data={"altcha": "x"}, **where).status_code == 400


@pytest.mark.parametrize("setup, expected", [("none", 'id="lepas-tidak-diblokir"'),
                                             ("plain", 'id="lepas-tidak-tersedia"')])
def test_the_page_says_when_there_is_nothing_to_release_or_the_appeal_is_the_way(client, make_block, setup,
                                                                                   expected):
    where = browser(client)
    if setup == "plain":
        make_block(network=RANGE)
    body = text_of(client.get("/lepas-blokir", **where))
    assert expected in body and "data-challenge" not in body


def test_english_page(client, make_block):
    where = browser(client)
    make_block(network=RANGE, self_release=True)
    body = text_of(client.get("/lepas-blokir", headers={"Accept-Language": "en"}, **where))
    assert "Unblock myself" in body and '<html lang="en">' in body


@pytest.fixture()
def admin_client(client, make_user):
    sign_in_session(client, make_user(role="admin", email="admin-lepas@example.com"))
    return client


def test_the_admin_checkbox_and_switch(admin_client, app):
    created = post_form(admin_client, "/admin/blokir", {"ip": "192.0.2.0/24", "self_release": "1"},
                        page="/admin/blokir")
    assert created.status_code == 303
    plain = post_form(admin_client, "/admin/blokir", {"ip": "192.0.2.99"}, page="/admin/blokir")
    assert plain.status_code == 303
    with app.app_context():
        releasable, other = (db.session.query(Block).filter_by(network=network).one()
                             for network in ("192.0.2.0/24", "192.0.2.99/32"))
        assert releasable.self_release is True and other.self_release is False
        reference = other.reference
    page = text_of(admin_client.get("/admin/blokir"))
    assert f"Izinkan buka sendiri {reference}" in page
    switched = post_form(admin_client, f"/admin/blokir/{reference}/lepas-sendiri", {"aktif": "1"},
                         page="/admin/blokir")
    assert switched.status_code == 303
    with app.app_context():
        assert db.session.query(Block).filter_by(reference=reference).one().self_release is True
        event = db.session.query(AuditEvent).filter_by(action="block.self_release_changed").one()
        assert event.target == reference and event.actor_label == "admin-lepas@example.com"
    assert admin_client.post(f"/admin/blokir/{reference}/lepas-sendiri", data={"aktif": "0"}).status_code == 400


def test_the_admin_api_switch(client, bearer, make_block, app):
    _, admin = bearer("admin")
    reference = make_block(network="192.0.2.0/24")
    answer = client.post(f"/api/admin/blocks/{reference}/self-release", json={"self_release": True}, headers=admin)
    assert answer.status_code == 200 and answer.get_json()["data"]["self_release"] is True
    assert client.post(f"/api/admin/blocks/{reference}/self-release", json={}, headers=admin).status_code == 422


def test_the_desk_counts_releases_per_block_and_source_and_who_was_blocked_again(admin_client, make_block, app):
    # A range wider than a /24: two visitors in two /24s of it are two networks, each releasing once.
    reference = make_block(network="127.14.0.0/16", self_release=True)
    for n, device in enumerate(("cookie-a-000001", "cookie-b-000002")):
        where = browser(admin_client, ip=f"127.14.{1 + n}.{20 + n}", device=device)
        payload = solve(page_challenge(text_of(admin_client.get("/lepas-blokir", **where))))
        assert post_form(admin_client, "/lepas-blokir", {"altcha": payload}, page="/lepas-blokir",
                         **where).status_code == 303
    make_block(network="127.14.1.20/32")  # the first of them is blocked again while released
    with app.app_context():
        assert mark_blocked_again() == 1
        release = db.session.query(SelfRelease).filter_by(ip_address="127.14.1.20").one()
        assert release.reblocked_by is not None and release.reblocked_by != reference
        assert mark_blocked_again() == 0  # nothing new since
    desk = text_of(admin_client.get("/admin/lepas-sendiri", **from_ip("127.0.0.1")))
    row = re.search(r'<th scope="row" class="code">guardsvc</th><td>(\d+)</td><td>(\d+)</td>', desk)
    assert row and row.groups() == ("2", "1")
    assert reference in desk
    blocks_page = text_of(admin_client.get(f"/admin/blokir?q={reference}", **from_ip("127.0.0.1")))
    assert "2 kali" in blocks_page and "diblokir lagi: 1" in blocks_page


def test_retention_forgets_used_proofs_and_release_addresses(client, make_block, app, runner):
    where = browser(client)
    make_block(network=RANGE, self_release=True)
    payload = solve(page_challenge(text_of(client.get("/lepas-blokir", **where))))
    assert post_form(client, "/lepas-blokir", {"altcha": payload}, page="/lepas-blokir", **where).status_code == 303
    with app.app_context():
        from guardsvc.selfrelease.models import UsedProof
        db.session.query(UsedProof).update({"expires_at": clock.utcnow() - timedelta(seconds=1)})
        db.session.query(SelfRelease).update({"created_at": clock.utcnow() - timedelta(days=31)})
        db.session.commit()
    output = runner.invoke(args=["purge"]).output
    assert "used self-release proofs deleted: 1" in output and "self-release addresses erased: 1" in output
    with app.app_context():
        release = db.session.query(SelfRelease).one()
        assert (release.ip_address, release.address_key, release.device_key) == (None, None, None)


def test_a_browser_without_a_device_cookie_is_offered_it_and_gets_its_device_on_the_page(app, make_block):
    make_block(network=RANGE, self_release=True)
    where = from_ip("127.0.14.77")
    first = app.test_client()  # a browser on its very first page, under an address block
    blocked = first.get("/akun", headers={"Accept": "text/html"}, **where)
    assert blocked.status_code == 403 and 'id="buka-sendiri"' in text_of(blocked)
    fresh = app.test_client()  # and one that reaches the self-release page with no cookie at all
    page = fresh.get("/lepas-blokir", **where)
    cookies = page.headers.getlist("Set-Cookie")
    assert len([cookie for cookie in cookies if cookie.startswith("guardsvc_device=")]) == 1
    payload = solve(page_challenge(text_of(page)))
    assert post_form(fresh, "/lepas-blokir", {"altcha": payload}, page="/lepas-blokir", **where).status_code == 303
