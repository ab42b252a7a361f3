"""The edge list a proxy's Lua module pulls (GET /edge/v1/decisions): the whole list, deltas, who may pull it."""
import hashlib
import time
from datetime import timedelta, timezone

import pytest

from guardsvc import create_app
from guardsvc.blocks.edge import GAP_GRACE, MAX_DELTA, network_key
from guardsvc.storage import clock

URL = "/edge/v1/decisions"
SECRET = "edge-list-secret-0123456789abcdefghij"


@pytest.fixture(scope="module")
def edge_app(app):
    return create_app({"TESTING": True, "FORWARD_AUTH_SECRET": SECRET})


def pull(flask_app, since=None, secret=SECRET, peer="127.0.0.1"):
    headers = {"X-Guardsvc-Secret": secret} if secret else {}
    query = {} if since is None else {"since": since}
    return flask_app.test_client().get(URL, headers=headers, query_string=query, environ_base={"REMOTE_ADDR": peer})


def answer(response):
    """(full?, cursor, lines) of a 200 answer."""
    assert response.status_code == 200 and response.mimetype == "text/plain"
    return (response.headers["X-Guardsvc-Full"] == "1", int(response.headers["X-Guardsvc-Cursor"]),
            response.get_data(as_text=True).splitlines())


def lift(app, reference):
    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db

    with app.app_context():
        lift_block(reference)
        db.session.commit()


def expire(app, reference):
    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db

    with app.app_context():
        db.session.execute(db.update(Block).where(Block.reference == reference)
                           .values(expires_at=clock.utcnow() - timedelta(seconds=1)))
        db.session.commit()


@pytest.mark.parametrize("network,key", [
    ("203.0.113.7/32", "4/32/cb007107"),
    ("10.20.0.0/14", "4/14/0a14"),
    ("0.0.0.0/0", "4/0/"),
    ("2001:db8:1234:5678::/61", "6/61/20010db812345678"),
    ("2001:db8:abcd::/48", "6/48/20010db8abcd"),
    ("::/0", "6/0/"),
])
def test_a_network_key_is_its_leading_hex_digits(network, key):
    assert network_key(network) == key


def test_the_whole_list_holds_active_blocks_only_and_devices_as_hashes(edge_app, make_block, app):
    make_block(network="10.20.0.0/14")
    make_block(device_id="perangkat-1", minutes=30)
    lift(app, make_block(network="198.51.100.9"))
    expired = make_block(network="198.51.100.10", minutes=1)
    expire(app, expired)
    full, cursor, lines = answer(pull(edge_app))
    assert full and cursor > 0
    assert len(lines) == 2 and "n 4/14/0a14 0" in lines
    kind, device, expires = next(line for line in lines if line.startswith("d ")).split()
    # The device cookie's value never leaves guardsvc: the edge gets its SHA-1, and hashes the cookie alike.
    assert device == hashlib.sha1(b"perangkat-1").hexdigest()
    assert "perangkat-1" not in pull(edge_app).get_data(as_text=True)
    assert abs(int(expires) - (clock.utcnow() + timedelta(minutes=30)).timestamp()) < 60 * 60 * 24  # a unix time


def test_a_delta_sends_new_blocks_lifts_and_expiry_changes_only(edge_app, make_block, app):
    make_block(network="192.0.2.0/24")
    _, cursor, _ = answer(pull(edge_app))
    full, same, lines = answer(pull(edge_app, since=cursor))
    assert not full and same == cursor and lines == []  # nothing changed: an empty delta
    blocked = make_block(network="203.0.113.7")
    full, cursor, lines = answer(pull(edge_app, since=cursor))
    assert not full and lines == ["n 4/32/cb007107 0"]
    lift(app, blocked)
    full, cursor, lines = answer(pull(edge_app, since=cursor))
    assert not full and lines == ["n 4/32/cb007107 -"]
    # Two blocks on one target: lifting one leaves the other's expiry; the latest expiry wins.
    first = make_block(device_id="perangkat-2", minutes=10)
    make_block(device_id="perangkat-2", minutes=60)
    _, cursor, lines = answer(pull(edge_app, since=cursor))
    key = hashlib.sha1(b"perangkat-2").hexdigest()
    later = int(lines[0].split()[2])
    assert lines == [f"d {key} {later}"] and later >= (clock.utcnow() + timedelta(minutes=59)).timestamp()
    lift(app, first)
    _, cursor, lines = answer(pull(edge_app, since=cursor))
    assert lines == [f"d {key} {later}"]
    # An expiry moved into the past is a change too (the edge also forgets an entry at its expiry).
    shortened = make_block(network="2001:db8::/64", minutes=5)
    expire(app, shortened)
    _, cursor, lines = answer(pull(edge_app, since=cursor))
    assert lines == ["n 6/64/20010db800000000 -"]


def test_a_cursor_out_of_reach_gets_the_whole_list_again(edge_app, make_block, app):
    from guardsvc.blocks.models import EdgeChange
    from guardsvc.extensions import db

    make_block(network="192.0.2.0/24")
    _, cursor, _ = answer(pull(edge_app))
    full, again, lines = answer(pull(edge_app, since=cursor + 1000))  # another database's cursor
    assert full and again == cursor and lines == ["n 4/24/c00002 0"]
    make_block(network="192.0.2.77")
    make_block(network="192.0.2.78")
    with app.app_context():  # the changes after the cursor were pruned before this edge saw them
        db.session.execute(db.delete(EdgeChange).where(EdgeChange.id <= cursor + 1))
        db.session.commit()
    full, _, lines = answer(pull(edge_app, since=cursor))
    assert full and len(lines) == 3
    assert pull(edge_app, since="abc").status_code == 422
    assert pull(edge_app, since="-1").status_code == 422


def test_a_gap_in_the_log_holds_the_cursor_until_it_may_no_longer_fill(edge_app, make_block, app, monkeypatch):
    """PostgreSQL draws ids before commit: a missing id may be a transaction still writing."""
    from guardsvc.blocks.models import EdgeChange
    from guardsvc.extensions import db

    make_block(network="192.0.2.0/24")
    _, cursor, _ = answer(pull(edge_app))
    make_block(network="192.0.2.1")
    make_block(network="192.0.2.2")
    with app.app_context():
        ids = sorted(db.session.scalars(db.select(EdgeChange.id).where(EdgeChange.id > cursor)))
        db.session.execute(db.delete(EdgeChange).where(EdgeChange.id == ids[0]))  # not committed yet
        db.session.commit()
    full, held, lines = answer(pull(edge_app, since=cursor))
    assert not full and held == cursor and lines == ["n 4/32/c0000202 0"]
    monkeypatch.setattr(time, "time", lambda: 4e9)  # long after: rolled back
    full, moved, _ = answer(pull(edge_app, since=cursor))
    assert not full and moved == ids[1]


def test_a_huge_delta_is_sent_as_the_whole_list(edge_app, make_block, app, monkeypatch):
    import guardsvc.blocks.edge as edge

    _, cursor, _ = answer(pull(edge_app))
    for last in range(3):
        make_block(network=f"192.0.2.{last}")
    monkeypatch.setattr(edge, "MAX_DELTA", 2)
    full, _, lines = answer(pull(edge_app, since=cursor))
    assert full and len(lines) == 3
    assert MAX_DELTA > 2 and GAP_GRACE > 0


def test_only_the_proxy_pulls_the_list(edge_app, app, make_block):
    make_block(device_id="perangkat-rahasia")
    assert pull(edge_app, secret="salah").status_code == 401
    # From loopback too (pull's default peer): behind a proxy on the same host, that is every visitor.
    assert pull(edge_app, secret=None).status_code == 401
    assert pull(edge_app, secret=None, peer="::1").status_code == 401
    for url in (URL, "/api/guard/forward-auth"):
        refused = app.test_client().get(url, environ_base={"REMOTE_ADDR": "192.0.2.5"})
        assert refused.status_code == 401 and "perangkat-rahasia" not in refused.get_data(as_text=True)


def test_retention_prunes_changes_older_than_a_day_but_keeps_the_newest(app, edge_app, make_block):
    from guardsvc.blocks.models import EdgeChange
    from guardsvc.extensions import db
    from guardsvc.retention.service import purge

    make_block(network="192.0.2.0/24")
    _, cursor, _ = answer(pull(edge_app))
    now = clock.utcnow()
    day_and_more = int((now - timedelta(days=1, minutes=5)).replace(tzinfo=timezone.utc).timestamp())
    with app.app_context():
        db.session.add_all([EdgeChange(block_id=1, logged_at=day_and_more) for _ in range(3)])
        db.session.commit()
        counts = dict(purge(now=now))
        db.session.commit()
        left = db.session.execute(db.select(EdgeChange.id, EdgeChange.logged_at).order_by(EdgeChange.id)).all()
    # The block's own change is recent; of the three old ones, the newest row of the log stays.
    assert counts["old edge list changes deleted"] == 2 and len(left) == 2 and left[-1].logged_at == day_and_more
    full, _, _ = answer(pull(edge_app, since=cursor))
    assert not full  # the edge's cursor is still within reach


def test_network_keys_read_from_the_text_agree_with_ipaddress():
    import ipaddress
    import random

    rng = random.Random(37)
    for _ in range(3000):
        version = rng.choice((4, 6))
        bits = 32 if version == 4 else 128
        prefix = rng.randint(0, bits)
        value = rng.getrandbits(bits)
        if rng.random() < 0.4:  # runs of zero groups, compressed as "::"
            value &= ~((1 << rng.randint(16, bits)) - 1) if rng.random() < 0.5 else (1 << rng.randint(1, 64)) - 1
        kind = ipaddress.IPv4Network if version == 4 else ipaddress.IPv6Network
        network = kind((value >> (bits - prefix) << (bits - prefix), prefix))
        digits = f"{int(network.network_address):0{bits // 4}x}"[:(prefix + 3) // 4]
        assert network_key(network.with_prefixlen) == f"{version}/{prefix}/{digits}", network
