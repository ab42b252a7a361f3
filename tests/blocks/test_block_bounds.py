"""No list can take the world down (contract section 15).

Every source of blocks (CLI, API, admin page, import, CrowdSec) refuses a range
wider than ``GUARDSVC_WIDEST_BLOCK`` and any block touching ``GUARDSVC_NEVER_BLOCK``;
signing in is never guarded, so an administrator can always reach /admin and
lift a block, whatever blocks exist.
"""
import re

import pytest
import requests
from sqlalchemy import select

from guardsvc.blocks.models import Block
from guardsvc.config import SettingsError, load_settings
from guardsvc.crowdsec import source
from guardsvc.extensions import db
from guardsvc.metrics import counters
from tests.support.factories import PASSWORD
from tests.support.pages_support import CSRF_META, post_form, sign_in_session, text_of

DEFAULT_NEVER = ("127.0.0.0/8", "::1/128")  # what the settings give unless told (the suite sets "none")


@pytest.fixture()
def loopback_never_blocked(app, monkeypatch):
    monkeypatch.setitem(app.config, "NEVER_BLOCK", DEFAULT_NEVER)


def blocks(app):
    with app.app_context():
        found = db.session.scalars(select(Block.network)).all()
        db.session.remove()
        return found


@pytest.mark.parametrize("target,field_error", [
    ("0.0.0.0/0", "Rentang 0.0.0.0/0 terlalu luas untuk diblokir: paling luas /8 untuk IPv4."),
    ("10.0.0.0/7", "Rentang 10.0.0.0/7 terlalu luas untuk diblokir: paling luas /8 untuk IPv4."),
    ("::/0", "Rentang ::/0 terlalu luas untuk diblokir: paling luas /32 untuk IPv6."),
    ("::ffff:0.0.0.0/96", "Rentang 0.0.0.0/0 terlalu luas untuk diblokir: paling luas /8 untuk IPv4."),
    ("2001:db8::/31", "Rentang 2001:db8::/31 terlalu luas untuk diblokir: paling luas /32 untuk IPv6."),
])
def test_the_api_refuses_a_range_too_wide_with_a_field_error(app, client, bearer, target, field_error):
    _, admin = bearer("admin")
    answer = client.post("/api/admin/blocks", json={"ip": target, "reason": "uji"}, headers=admin)
    assert answer.status_code == 422
    body = answer.get_json()
    assert body["success"] is False and body["errors"] == {"ip": [field_error]}
    assert blocks(app) == []


@pytest.mark.parametrize("target", ["10.0.0.0/8", "2001:db8::/32", "203.0.113.7"])
def test_the_widest_allowed_ranges_are_blocked(app, client, bearer, target):
    _, admin = bearer("admin")
    assert client.post("/api/admin/blocks", json={"ip": target}, headers=admin).status_code == 201


def test_the_default_never_blocks_loopback_from_any_door(app, client, bearer, runner, loopback_never_blocked):
    _, admin = bearer("admin")
    for target, touched in [("127.0.0.1", "127.0.0.0/8"), ("127.0.0.0/8", "127.0.0.0/8"), ("::1", "::1/128"),
                            ("::ffff:127.0.0.9", "127.0.0.0/8")]:
        answer = client.post("/api/admin/blocks", json={"ip": target}, headers=admin)
        assert answer.status_code == 422, target
        assert f"mengenai jaringan {touched} yang tidak pernah diblokir" in answer.get_json()["errors"]["ip"][0]
    cli = runner.invoke(args=["blocks", "add", "--ip", "127.0.0.53"])
    assert cli.exit_code == 1 and "tidak boleh diblokir" in cli.output and "Traceback" not in cli.output
    assert runner.invoke(args=["blocks", "add", "--ip", "128.0.0.1"]).exit_code == 0
    assert blocks(app) == ["128.0.0.1/32"]


def test_a_range_around_a_never_blocked_network_is_refused_too(app, monkeypatch, client, bearer):
    monkeypatch.setitem(app.config, "WIDEST_BLOCK", (0, 0))
    monkeypatch.setitem(app.config, "NEVER_BLOCK", ("192.0.2.10/32",))
    _, admin = bearer("admin")
    assert client.post("/api/admin/blocks", json={"ip": "192.0.2.0/24"}, headers=admin).status_code == 422
    assert client.post("/api/admin/blocks", json={"ip": "0.0.0.0/0"}, headers=admin).status_code == 422
    assert client.post("/api/admin/blocks", json={"ip": "192.0.2.11"}, headers=admin).status_code == 201
    assert client.post("/api/admin/blocks", json={"ip": "::/0"}, headers=admin).status_code == 201  # another family


def test_the_admin_page_shows_the_refusal_on_the_field(app, client, make_user):
    admin_client = client
    sign_in_session(admin_client, make_user(role="admin"))
    response = post_form(admin_client, "/admin/blokir", {"ip": "0.0.0.0/1", "reason": "salah ketik"},
                         page="/admin/blokir")
    assert response.status_code == 422
    html = text_of(response)
    assert "Rentang 0.0.0.0/1 terlalu luas untuk diblokir: paling luas /8 untuk IPv4." in html
    assert 'value="0.0.0.0/1"' in html  # the form keeps what was typed
    assert blocks(app) == []


def test_an_allow_entry_may_be_as_wide_as_wanted(app, client, bearer, loopback_never_blocked):
    _, admin = bearer("admin")
    for target in ("0.0.0.0/0", "127.0.0.1"):
        assert client.post("/api/admin/allows", json={"ip": target}, headers=admin).status_code == 201


def test_crowdsec_decisions_on_whole_ranges_are_reported_and_never_stored(app, ctx, caplog, loopback_never_blocked):
    refused = counters.BLOCKS_REFUSED.labels(source="crowdsec")
    before = refused._value.get()
    ban = {"duration": "1h0m0s", "type": "ban", "origin": "lists", "scenario": "firehol"}
    created, _ = source.apply_decisions([
        {**ban, "id": 1, "value": "0.0.0.0/0", "scope": "Range"},
        {**ban, "id": 2, "value": "::/0", "scope": "Range"},
        {**ban, "id": 3, "value": "127.0.0.1", "scope": "Ip"},
        {**ban, "id": 4, "value": "198.51.100.0/24", "scope": "Range"},
    ], [])
    assert [block.network for block in created] == ["198.51.100.0/24"]
    assert db.session.scalars(select(Block.network)).all() == ["198.51.100.0/24"]
    assert refused._value.get() - before == 3
    warnings = [record.getMessage() for record in caplog.records if record.name == "guardsvc.crowdsec"]
    assert any("decision 1 on 0.0.0.0/0 not imported: wider than GUARDSVC_WIDEST_BLOCK" in line for line in warnings)
    assert any("decision 3 on 127.0.0.1/32 not imported: on GUARDSVC_NEVER_BLOCK" in line for line in warnings)


def test_a_whole_range_stored_before_the_rule_is_lifted_by_the_next_complete_pull(app, ctx):
    db.session.add(Block(reference="BLK-0000F00D", network="0.0.0.0/0", origin="crowdsec", source_decision_id=7))
    db.session.commit()
    ban = {"id": 7, "value": "0.0.0.0/0", "scope": "Range", "duration": "1h0m0s", "type": "ban", "origin": "lists"}
    _, lifted = source.apply_decisions([ban], [], complete=True)
    assert [block.reference for block in lifted] == ["BLK-0000F00D"]


@pytest.mark.parametrize("environ,expected", [
    ({}, ((8, 32), ("127.0.0.0/8", "::1/128"))),
    ({"GUARDSVC_WIDEST_BLOCK": "/16, /48"}, ((16, 48), None)),
    ({"GUARDSVC_WIDEST_BLOCK": "0 0"}, ((0, 0), None)),
    ({"GUARDSVC_NEVER_BLOCK": "none"}, (None, ())),
    ({"GUARDSVC_NEVER_BLOCK": "10.1.2.3, 192.168.0.0/16 fd00::/8"}, (None, ("10.1.2.3/32", "192.168.0.0/16",
                                                                           "fd00::/8"))),
    ({"GUARDSVC_NEVER_BLOCK": "::ffff:10.0.0.0/104"}, (None, ("10.0.0.0/8",))),
])
def test_settings_of_the_rule(monkeypatch, tmp_path, environ, expected):
    monkeypatch.delenv("GUARDSVC_NEVER_BLOCK", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    settings = load_settings(tmp_path)
    widest, never = expected
    assert widest is None or settings["WIDEST_BLOCK"] == widest
    assert never is None or settings["NEVER_BLOCK"] == never


@pytest.mark.parametrize("name,value", [
    ("GUARDSVC_WIDEST_BLOCK", "/8"), ("GUARDSVC_WIDEST_BLOCK", "/33,/32"), ("GUARDSVC_WIDEST_BLOCK", "/8,/129"),
    ("GUARDSVC_WIDEST_BLOCK", "eight,/32"), ("GUARDSVC_NEVER_BLOCK", "127.0.0.0/8,localhost"),
])
def test_a_rule_setting_that_cannot_work_stops_the_start_naming_itself(monkeypatch, tmp_path, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as refused:
        load_settings(tmp_path)
    assert name in str(refused.value)


def _csrf(session, url):
    return CSRF_META.search(session.get(url, timeout=10).text).group(1)


def _sign_in(session, base, email):
    """Through /masuk as a browser: the form's token, the password; the answer after the redirect."""
    token = _csrf(session, base + "/masuk")
    return session.post(base + "/masuk", data={"csrf_token": token, "email": email, "password": PASSWORD},
                        timeout=30)


@pytest.mark.live
def test_an_administrator_under_a_block_signs_in_and_lifts_it_a_blocked_user_still_gets_the_block_page(
        live_server, make_user, make_block, app):
    admin, user = make_user(role="admin"), make_user()
    # Every address the live server sees (127.0.0.0/8) and the rest of the IPv4 space from 128.0.0.0 up.
    reference = make_block(network="127.0.0.0/8", reason="daftar yang salah")
    other = make_block(network="128.0.0.0/8")
    base = live_server.url
    visitor = requests.Session()
    assert visitor.get(base + "/akun", timeout=10).status_code == 403  # guarded pages answer the block page
    sign_in_page = visitor.get(base + "/masuk", timeout=10)
    assert sign_in_page.status_code == 200 and 'name="password"' in sign_in_page.text

    desk = requests.Session()
    signed_in = _sign_in(desk, base, admin.email)
    assert signed_in.status_code == 200, signed_in.text
    listing = desk.get(base + "/admin/blokir", timeout=10)
    assert listing.status_code == 200 and reference in listing.text
    lifted = desk.post(f"{base}/admin/blokir/{reference}/buka",
                       data={"csrf_token": _csrf(desk, base + "/admin/blokir"), "reason": "salah daftar"}, timeout=10)
    assert lifted.status_code == 200 and lifted.url.endswith("/admin/blokir")
    assert visitor.get(base + "/akun", timeout=10).status_code != 403  # lifted: free again (sign-in page)
    with app.app_context():
        from guardsvc.blocks.service import get_block

        assert get_block(reference).lifted_at is not None and get_block(other).lifted_at is None

    make_block(network="127.0.0.1", reason="pengguna diblokir")
    blocked = requests.Session()
    answer = _sign_in(blocked, base, user.email)
    assert answer.status_code == 403  # signed in, then the page it was sent to is the block page
    assert re.search(r"BLK-[0-9A-F]{8}", answer.text) and "/banding" in answer.text
    assert blocked.get(base + "/akun", timeout=10).status_code == 403
