"""One network cannot spend the hour's self-releases (contract section 14, fifth edition).

The cooldown and a share of the hourly cap count the network as well as the
address: the blocked range itself, or the client's /24 (IPv4) or /48 (IPv6)
when the range is wider. Against a real server behind a proxy (the client's
address in ``X-Forwarded-For``, as nginx sends it), as an attacker holding a /48
under a self-releasable /32 would try it.
"""
from types import SimpleNamespace

import pytest

from guardsvc.selfrelease.service import network_key, network_share
from tests.support.blocks_helpers import from_ip
from tests.support.live import LiveServer, all_at_once
from tests.support.pages_support import text_of
from tests.support.self_release_support import CHALLENGE, RELEASE, call as request, solve

LIST_RANGE = "2001:db8::/32"  # a community list's range, self-releasable
ATTACKER_48 = "2001:db8:aaaa"  # the attacker's own /48 inside it


def call(server, method, path, address, device, body=None):
    """(status, JSON body) of one request that a proxy forwards for ``address``."""
    return request(server.port, method, path, "127.0.0.1", device, body, forwarded_for=address)


def payloads(server, clients):
    """A solved challenge for each (address, device) that gets one; None for a refused one (and its status)."""
    solved = []
    for address, device in clients:
        status, body = call(server, "GET", CHALLENGE, address, device)
        solved.append(solve(body["data"]["challenge"]) if status == 200 else None)
    return solved


def release_all_at_once(server, clients):
    """Statuses of every client's release, sent at the same moment (429 for a client refused its challenge)."""
    solved = payloads(server, clients)
    return all_at_once(len(clients), lambda i: 429 if solved[i] is None else call(
        server, "POST", RELEASE, clients[i][0], clients[i][1], {"altcha": solved[i]})[0])


@pytest.fixture(scope="module")
def proxied_server(app):
    """Behind one proxy, with an hour's cap of 20: a network or a block may use 2 of them."""
    server = LiveServer(workers=2, env={"GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_SELF_RELEASE_PER_HOUR": "20"})
    yield server
    server.stop()


@pytest.mark.live
def test_one_holder_of_a_48_releases_once_and_cannot_spend_the_hour_for_a_person_under_another_block(
        proxied_server, make_block):
    make_block(network=LIST_RANGE, self_release=True)
    other_block = make_block(network="198.51.100.0/24", self_release=True)
    # Eight addresses of one /48, each in a /64 of its own and with a device of its own, all at once.
    own = [(f"{ATTACKER_48}:{n}::1", f"penyerang-{n}") for n in range(1, 9)]
    assert sorted(release_all_at_once(proxied_server, own)) == [201] + [429] * 7
    status, body = call(proxied_server, "GET", CHALLENGE, f"{ATTACKER_48}:99::1", "penyerang-99")
    assert status == 429 and "Jaringan alamat IP ini sudah membuka blokir sendiri" in body["message"]
    # Then from 24 other /48s of the same list range: the block's share of the hour (2) is all they get.
    others = [(f"2001:db8:{0xb000 + n:x}::1", f"penyerang-lain-{n}") for n in range(24)]
    assert sorted(release_all_at_once(proxied_server, others)) == [201] + [429] * 23
    # A person under another block still releases.
    status, body = call(proxied_server, "GET", CHALLENGE, "198.51.100.20", "ponsel-orang-lain")
    assert status == 200, body
    status, body = call(proxied_server, "POST", RELEASE, "198.51.100.20", "ponsel-orang-lain",
                        {"altcha": solve(body["data"]["challenge"])})
    assert status == 201 and body["data"]["references"] == [other_block]


def blocks(*networks):
    return [SimpleNamespace(network=network) for network in networks]


@pytest.mark.parametrize("address,networks,expected", [
    ("198.51.100.7", ["198.51.100.7/32"], "198.51.100.7/32"),  # a single address: itself
    ("198.51.100.7", ["198.51.100.0/28"], "198.51.100.0/28"),  # a range narrower than a /24: itself
    ("198.51.100.7", ["198.51.0.0/16"], "198.51.100.0/24"),  # wider: the client's /24
    ("198.51.100.7", ["198.51.100.7/32", "198.51.0.0/16"], "198.51.100.0/24"),  # of several, the widest
    ("2001:db8:aaaa:5::1", ["2001:db8::/32"], "2001:db8:aaaa::/48"),
    ("2001:db8:aaaa:5::1", ["2001:db8:aaaa:5::/64"], "2001:db8:aaaa:5::/64"),
    ("198.51.100.7", [None], None),  # a device block alone names no network
])
def test_the_network_a_release_counts_by(address, networks, expected):
    assert network_key(address, blocks(*networks)) == expected


@pytest.mark.parametrize("per_hour,share", [(200, 20), (20, 2), (3, 1), (1, 1)])
def test_the_share_of_the_hour_is_a_tenth_and_at_least_one(app, monkeypatch, per_hour, share):
    monkeypatch.setitem(app.config, "SELF_RELEASE_PER_HOUR", per_hour)
    with app.app_context():
        assert network_share() == share


def test_the_page_and_the_api_say_the_network_released_itself_already(client, make_block):
    make_block(network="127.0.15.0/24", self_release=True)
    first = {"headers": {"X-Device-Id": "ponsel-pertama"}, **from_ip("127.0.15.10")}
    answer = client.get(CHALLENGE, **first)
    assert client.post(RELEASE, json={"altcha": solve(answer.get_json()["data"]["challenge"])},
                       **first).status_code == 201
    neighbour = {"headers": {"X-Device-Id": "ponsel-tetangga"}, **from_ip("127.0.15.11")}
    refused = client.get(CHALLENGE, **neighbour)
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 7 * 86400
    assert refused.get_json()["message"].startswith("Jaringan alamat IP ini sudah membuka blokir sendiri")
    english = client.get(CHALLENGE, headers={**neighbour["headers"], "Accept-Language": "en"},
                         environ_base=neighbour["environ_base"])
    assert english.get_json()["message"].startswith("This IP address's network has already unblocked itself")
    page = text_of(client.get("/lepas-blokir", **neighbour))
    assert "Jaringan alamat IP ini sudah membuka blokir sendiri baru-baru ini." in page
