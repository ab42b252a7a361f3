"""The decision stream in CrowdSec's bouncer protocol: format, range minus allows, per-key cursor."""
import ipaddress
from datetime import timedelta

import pytest
import requests

from guardsvc.crowdsec.decisions import FOREVER, go_duration, piece_id, remaining_pieces
from guardsvc.extensions import db
from guardsvc.storage import clock
from tests.support.live import all_at_once

net = ipaddress.ip_network


@pytest.mark.parametrize("delta, text", [
    (timedelta(0), "0s"),
    (timedelta(hours=3, minutes=59, seconds=58, milliseconds=123), "3h59m58.123s"),
    (timedelta(hours=1), "1h0m0s"),
    (timedelta(minutes=1), "1m0s"),
    (timedelta(seconds=61, microseconds=500000), "1m1.5s"),
    (timedelta(seconds=59, microseconds=1), "59.000001s"),
    (timedelta(milliseconds=1, microseconds=500), "1.5ms"),
    (timedelta(microseconds=7), "7\u00b5s"),
    (timedelta(seconds=-2, microseconds=-500000), "-2.5s"),
    (timedelta(days=-1), "-24h0m0s"),
    (FOREVER, "87600h0m0s"),
])
def test_go_duration_prints_like_go(delta, text):
    assert go_duration(delta) == text


def test_a_range_minus_an_address_is_the_fewest_ranges_covering_the_rest():
    pieces = remaining_pieces(net("10.0.0.0/24"), [net("10.0.0.5/32")])
    assert [str(piece) for piece in pieces] == ["10.0.0.0/30", "10.0.0.4/32", "10.0.0.6/31", "10.0.0.8/29",
                                                "10.0.0.16/28", "10.0.0.32/27", "10.0.0.64/26", "10.0.0.128/25"]
    assert sum(piece.num_addresses for piece in pieces) == 255


def test_range_minus_allows_merges_and_ignores_what_does_not_meet_it():
    # Two neighbours allowed: the rest collapses to the fewest ranges.
    assert remaining_pieces(net("10.0.0.0/30"), [net("10.0.0.2/32"), net("10.0.0.3/32")]) == [net("10.0.0.0/31")]
    assert remaining_pieces(net("10.0.0.0/24"), [net("10.0.0.0/16")]) == []  # a wider allow swallows it
    assert remaining_pieces(net("10.0.0.0/24"), [net("10.0.1.0/24"), net("::1/128")]) == [net("10.0.0.0/24")]
    v6 = remaining_pieces(net("2001:db8::/126"), [net("2001:db8::1/128")])
    assert v6 == [net("2001:db8::/128"), net("2001:db8::2/127")]
    overlapping = remaining_pieces(net("10.0.0.0/24"), [net("10.0.0.0/25"), net("10.0.0.0/26")])
    assert overlapping == [net("10.0.0.128/25")]


def test_piece_ids_are_stable_distinct_and_never_a_whole_block_id():
    ids = {piece_id(7, piece) for piece in remaining_pieces(net("10.0.0.0/16"), [net("10.0.3.4/32")])}
    assert len(ids) == 16
    assert ids == {piece_id(7, piece) for piece in remaining_pieces(net("10.0.0.0/16"), [net("10.0.3.4/32")])}
    assert min(ids) >= 7 << 31 and max(ids) < 8 << 31
    assert piece_id(7, net("10.0.0.0/23")) != piece_id(8, net("10.0.0.0/23"))


# The doors, through the test client.

@pytest.fixture()
def bouncer_key(app, runner):
    def make(name="firewall"):
        result = runner.invoke(args=["bouncers", "add", name])
        assert result.exit_code == 0, result.output
        return result.output.strip().splitlines()[-1]
    return make


def pull(client, key, startup=False):
    response = client.get(f"/crowdsec/v1/decisions/stream?startup={'true' if startup else 'false'}",
                          headers={"X-Api-Key": key})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def values(decisions):
    return sorted(decision["value"] for decision in decisions or [])


def test_startup_sends_every_active_address_block_as_a_ban(client, bouncer_key, make_block):
    key = bouncer_key()
    ip_ref = make_block(network="192.0.2.7")
    range_ref = make_block(network="2001:db8::/48", minutes=90)
    make_block(device_id="dev-1")  # a bouncer sees no devices
    make_block(network="192.0.2.9", local_ip="10.1.1.1")  # nor local IPs
    answer = pull(client, key, startup=True)
    assert answer["deleted"] is None
    by_value = {decision["value"]: decision for decision in answer["new"]}
    assert set(by_value) == {"192.0.2.7", "2001:db8::/48"}
    ip, rng = by_value["192.0.2.7"], by_value["2001:db8::/48"]
    assert {key: ip[key] for key in ("origin", "type", "scope", "scenario", "duration")} == {
        "origin": "guardsvc", "type": "ban", "scope": "Ip", "scenario": f"guardsvc/{ip_ref}",
        "duration": "87600h0m0s"}
    assert (rng["scope"], rng["scenario"]) == ("Range", f"guardsvc/{range_ref}")
    assert rng["duration"].startswith(("1h29m", "1h30m0s"))
    assert isinstance(ip["id"], int) and ip["id"] != rng["id"]


def test_later_pulls_send_only_changes_and_each_key_has_its_own_cursor(client, app, bouncer_key, make_block,
                                                                        runner):
    first, second = bouncer_key("first"), bouncer_key("second")
    old = make_block(network="192.0.2.7")
    ids = {d["value"]: d["id"] for d in pull(client, first, startup=True)["new"]}
    assert pull(client, first) == {"new": None, "deleted": None}
    make_block(network="192.0.2.8")
    assert runner.invoke(args=["blocks", "lift", old]).exit_code == 0
    answer = pull(client, first)
    assert values(answer["new"]) == ["192.0.2.8"]
    assert [(d["value"], d["id"]) for d in answer["deleted"]] == [("192.0.2.7", ids["192.0.2.7"])]
    assert answer["deleted"][0]["duration"].startswith("-")
    assert pull(client, first) == {"new": None, "deleted": None}
    # The second key never pulled: its first pull without startup sends everything active, nothing deleted.
    assert pull(client, second) == {"new": pull(client, first, startup=True)["new"], "deleted": None}


def test_an_expired_block_is_sent_as_deleted_at_the_next_pull(client, bouncer_key, make_block, monkeypatch):
    key = bouncer_key()
    make_block(network="192.0.2.7", minutes=5)
    assert values(pull(client, key)["new"]) == ["192.0.2.7"]
    later = clock.utcnow() + timedelta(minutes=6)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    answer = pull(client, key)
    assert answer["new"] is None
    assert values(answer["deleted"]) == ["192.0.2.7"]
    assert answer["deleted"][0]["duration"].startswith("-1m")  # ended a minute ago
    assert pull(client, key) == {"new": None, "deleted": None}


def test_an_allow_entry_splits_a_range_and_its_removal_joins_it(client, app, bouncer_key, make_block, make_allow,
                                                                 runner):
    key = bouncer_key()
    make_block(network="198.51.100.0/29")
    whole = pull(client, key, startup=True)["new"]
    assert values(whole) == ["198.51.100.0/29"]
    allow = make_allow(network="198.51.100.5")
    split = pull(client, key)
    assert values(split["deleted"]) == ["198.51.100.0/29"]
    assert values(split["new"]) == ["198.51.100.0/30", "198.51.100.4", "198.51.100.6/31"]
    assert {d["scope"] for d in split["new"]} == {"Range", "Ip"}
    # Same pieces, same ids: a restart (startup) names them alike.
    assert sorted(d["id"] for d in pull(client, key, startup=True)["new"]) == sorted(d["id"] for d in split["new"])
    assert runner.invoke(args=["allows", "remove", str(allow)]).exit_code == 0
    joined = pull(client, key)
    assert values(joined["deleted"]) == values(split["new"])
    assert joined["new"] == [dict(whole[0], duration=joined["new"][0]["duration"])]


def test_an_allow_entry_on_a_blocked_ip_or_around_a_range_removes_it(client, bouncer_key, make_block, make_allow):
    key = bouncer_key()
    make_block(network="192.0.2.7")
    make_block(network="10.9.0.0/24")
    make_allow(network="192.0.2.7")
    make_allow(network="10.0.0.0/8")
    make_allow(device_id="dev-1")
    assert pull(client, key, startup=True)["new"] is None


def test_decision_query_answers_for_one_address(client, bouncer_key, make_block, make_allow):
    key = bouncer_key()
    make_block(network="198.51.100.0/24")
    make_block(network="198.51.100.7")
    make_allow(network="198.51.100.9")

    def query(ip):
        response = client.get(f"/crowdsec/v1/decisions?ip={ip}", headers={"X-Api-Key": key})
        assert response.status_code == 200
        return response.get_json()

    assert values(query("198.51.100.7")) == ["198.51.100.0/29", "198.51.100.7"]
    assert values(query("::ffff:198.51.100.200")) == ["198.51.100.128/25"]
    assert query("198.51.100.9") is None  # allowed: nothing covers it
    assert query("203.0.113.1") is None
    refused = client.get("/crowdsec/v1/decisions?ip=not-an-ip", headers={"X-Api-Key": key})
    assert refused.status_code == 400


@pytest.mark.parametrize("headers", [{}, {"X-Api-Key": "wrong"}])
def test_a_missing_or_wrong_key_is_refused_as_the_lapi_refuses_it(client, bouncer_key, headers):
    bouncer_key()
    for path in ("/crowdsec/v1/decisions/stream?startup=true", "/crowdsec/v1/decisions?ip=192.0.2.1"):
        response = client.get(path, headers=headers)
        assert (response.status_code, response.get_json()) == (403, {"message": "access forbidden"})


def test_a_head_probe_does_not_move_the_cursor(client, bouncer_key, make_block):
    key = bouncer_key()
    make_block(network="192.0.2.7")
    assert client.head("/crowdsec/v1/decisions/stream", headers={"X-Api-Key": key}).status_code == 200
    assert values(pull(client, key)["new"]) == ["192.0.2.7"]


def test_the_stream_is_not_guarded_by_blocks(client, bouncer_key, make_block):
    key = bouncer_key()
    make_block(network="127.0.0.1")  # the test client's own address
    assert values(pull(client, key, startup=True)["new"]) == ["127.0.0.1"]


def test_bouncer_keys_are_stored_hashed_listed_and_removed(app, client, runner, bouncer_key):
    from guardsvc.crowdsec.models import Bouncer

    key = bouncer_key("edge-1")
    again = runner.invoke(args=["bouncers", "add", "edge-1"])
    assert again.exit_code != 0
    with app.app_context():
        stored = db.session.query(Bouncer).one()
        assert key not in (stored.key_hash, stored.name) and len(stored.key_hash) == 64
    pull(client, key, startup=True)
    listed = runner.invoke(args=["bouncers", "list", "--json"])
    assert '"name": "edge-1"' in listed.output and '"last_pull_at": "20' in listed.output
    assert runner.invoke(args=["bouncers", "remove", "edge-1"]).exit_code == 0
    assert client.get("/crowdsec/v1/decisions/stream", headers={"X-Api-Key": key}).status_code == 403
    assert runner.invoke(args=["bouncers", "remove", "edge-1"]).exit_code != 0


@pytest.mark.live
def test_concurrent_pulls_with_one_key_across_workers_send_each_change_once(live_server, bouncer_key, make_block):
    key = bouncer_key()
    make_block(network="192.0.2.7")
    make_block(network="198.51.100.0/24")
    url = live_server.url + "/crowdsec/v1/decisions/stream?startup=false"
    answers = all_at_once(8, lambda _: requests.get(url, headers={"X-Api-Key": key}, timeout=30))
    assert [answer.status_code for answer in answers] == [200] * 8
    sent = [value for answer in answers for value in values(answer.json()["new"])]
    assert sorted(sent) == ["192.0.2.7", "198.51.100.0/24"]  # each once, whichever worker sent it


def test_ipv6_ranges_are_split_and_covered_like_ipv4(client, bouncer_key, make_block, make_allow):
    key = bouncer_key()
    make_block(network="2001:db8::/126")
    make_block(network="2001:db8:1::/64")
    make_allow(network="2001:db8::1")
    make_allow(network="2001:db8:1::/48")  # around the second range: it is not sent at all
    make_allow(network="10.0.0.0/8")  # another family: changes nothing here
    assert values(pull(client, key, startup=True)["new"]) == ["2001:db8::", "2001:db8::2/127"]


def test_a_block_an_allow_entry_covered_whole_is_sent_when_the_entry_goes(client, bouncer_key, make_block, make_allow,
                                                                          runner):
    key = bouncer_key()
    make_block(network="192.0.2.7")
    allow = make_allow(network="192.0.2.0/24")
    assert pull(client, key, startup=True)["new"] is None
    assert pull(client, key) == {"new": None, "deleted": None}
    assert runner.invoke(args=["allows", "remove", str(allow)]).exit_code == 0
    assert values(pull(client, key)["new"]) == ["192.0.2.7"]


def test_blocks_written_by_plain_sql_reach_the_stream_as_changes(app, client, bouncer_key, make_block):
    """A bulk import writes rows with one statement, not through the service: the log still sees them."""
    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db

    key = bouncer_key()
    make_block(network="192.0.2.7")
    pull(client, key, startup=True)
    with app.app_context():
        db.session.execute(db.insert(Block), [
            {"reference": f"BLK-0000{number:04X}", "network": f"198.51.100.{number}/32", "created_at": clock.utcnow()}
            for number in range(1, 4)])
        db.session.commit()
    assert values(pull(client, key)["new"]) == ["198.51.100.1", "198.51.100.2", "198.51.100.3"]
    with app.app_context():
        db.session.execute(db.update(Block).where(Block.network == "198.51.100.2/32").values(lifted_at=clock.utcnow()))
        db.session.commit()
    answer = pull(client, key)
    assert answer["new"] is None and values(answer["deleted"]) == ["198.51.100.2"]


def test_a_change_too_big_for_a_delta_sends_everything_active_and_what_ended(app, client, bouncer_key, make_block,
                                                                             runner, monkeypatch):
    import guardsvc.crowdsec.stream as stream

    key = bouncer_key()
    lifted = make_block(network="192.0.2.7")
    make_block(network="192.0.2.8")
    pull(client, key, startup=True)
    monkeypatch.setattr(stream, "MAX_DELTA", 2)
    assert runner.invoke(args=["blocks", "lift", lifted]).exit_code == 0
    for last in range(9, 12):
        make_block(network=f"192.0.2.{last}")
    answer = pull(client, key)
    assert values(answer["new"]) == ["192.0.2.10", "192.0.2.11", "192.0.2.8", "192.0.2.9"]
    assert values(answer["deleted"]) == ["192.0.2.7"]
    monkeypatch.setattr(stream, "MAX_DELTA", 1000)
    assert pull(client, key) == {"new": None, "deleted": None}
