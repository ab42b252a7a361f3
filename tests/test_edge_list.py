"""The edge list a proxy's Lua module pulls (GET /edge/v1/decisions): what it holds, who may pull it."""
from datetime import timedelta

import pytest

from guardsvc import create_app
from guardsvc.blocks.edge import network_key
from guardsvc.storage import clock

URL = "/edge/v1/decisions"
SECRET = "edge-list-secret"


@pytest.fixture(scope="module")
def edge_app(app):
    return create_app({"TESTING": True, "FORWARD_AUTH_SECRET": SECRET})


def pull(flask_app, etag=None, secret=SECRET, peer="127.0.0.1"):
    headers = {"X-Guardsvc-Secret": secret} if secret else {}
    if etag:
        headers["If-None-Match"] = etag
    return flask_app.test_client().get(URL, headers=headers, environ_base={"REMOTE_ADDR": peer})


@pytest.mark.parametrize("network,key", [
    ("203.0.113.7/32", "4/32/cb007107"),
    ("10.20.0.0/14", "4/14/0a14"),
    ("0.0.0.0/0", "4/0/"),
    ("2001:db8:1234:5678::/61", "6/61/20010db812345678"),
    ("2001:db8:abcd::/48", "6/48/20010db8abcd"),
])
def test_a_network_key_is_its_leading_hex_digits(network, key):
    assert network_key(network) == key


def test_the_list_holds_active_blocks_only_and_an_unchanged_list_costs_a_304(edge_app, make_block, app):
    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db

    make_block(network="10.20.0.0/14")
    make_block(device_id="perangkat-1", minutes=30)
    lifted = make_block(network="198.51.100.9")
    with app.app_context():
        lift_block(lifted)
        db.session.commit()
    expired = make_block(network="198.51.100.10", minutes=1)
    with app.app_context():
        from guardsvc.blocks.models import Block
        db.session.execute(db.update(Block).where(Block.reference == expired)
                           .values(expires_at=clock.utcnow() - timedelta(seconds=1)))
        db.session.commit()
    response = pull(edge_app)
    assert response.status_code == 200 and response.mimetype == "text/plain"
    lines = response.get_data(as_text=True).splitlines()
    assert len(lines) == 2 and "n 4/14/0a14 0" in lines
    kind, device, expires = next(line for line in lines if line.startswith("d ")).split()
    assert device == "perangkat-1"
    assert abs(int(expires) - (clock.utcnow() + timedelta(minutes=30)).timestamp()) < 60 * 60 * 24  # a unix time
    etag = response.headers["ETag"]
    again = pull(edge_app, etag=etag)
    assert again.status_code == 304 and again.data == b""
    make_block(network="203.0.113.7")
    changed = pull(edge_app, etag=etag)
    assert changed.status_code == 200 and "n 4/32/cb007107 0" in changed.get_data(as_text=True)


def test_only_the_proxy_pulls_the_list(edge_app, app, make_block):
    make_block(device_id="perangkat-rahasia")
    assert pull(edge_app, secret="salah").status_code == 401
    # From loopback too (pull's default peer): behind a proxy on the same host, that is every visitor.
    assert pull(edge_app, secret=None).status_code == 401
    assert pull(edge_app, secret=None, peer="::1").status_code == 401
    for url in (URL, "/api/guard/forward-auth"):
        refused = app.test_client().get(url, environ_base={"REMOTE_ADDR": "192.0.2.5"})
        assert refused.status_code == 401 and "perangkat-rahasia" not in refused.get_data(as_text=True)
