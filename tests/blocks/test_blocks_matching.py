"""Which blocks apply to which client: addresses, ranges, devices, local IPs, expiry."""
import ipaddress
import random
from datetime import timedelta

import pytest

from guardsvc.storage import clock
from guardsvc.blocks import service
from guardsvc.blocks.networks import candidate_networks, canonical_network
from guardsvc.web.errors import InvalidState, ValidationFailed
from guardsvc.extensions import db


def block(**kwargs):
    created = service.create_block(**kwargs)
    db.session.commit()
    return created


def found(ip=None, device=None, local=None):
    match = service.find_active_block(ip, device, local)
    return match.reference if match else None


@pytest.mark.parametrize("target,inside,outside", [
    ("203.0.113.7", "203.0.113.7", "203.0.113.8"),
    ("2001:db8::7", "2001:db8:0:0::7", "2001:db8::8"),
    ("203.0.113.0/24", "203.0.113.250", "203.0.114.1"),
    ("10.0.0.0/8", "10.255.255.255", "11.0.0.0"),
    ("2001:db8:abcd::/48", "2001:db8:abcd:ffff::1", "2001:db8:abce::1"),
    ("0.0.0.0/0", "198.51.100.1", "2001:db8::1"),
    ("::ffff:192.0.2.0/120", "192.0.2.77", "192.0.3.1"),
])
def test_ip_and_cidr_blocks_match_exactly_their_addresses(ctx, app, monkeypatch, target, inside, outside):
    monkeypatch.setitem(app.config, "WIDEST_BLOCK", (0, 0))  # an operator who allows any width
    monkeypatch.setitem(app.config, "MAX_COVERAGE", None)  # ... and any coverage
    ref = block(network=target).reference
    assert found(inside) == ref
    assert found(outside) is None


def test_ipv4_mapped_client_matches_ipv4_block(ctx):
    ref = block(network="198.51.100.0/24").reference
    assert found("::ffff:198.51.100.9") == ref


def test_single_address_is_stored_as_full_prefix(ctx):
    assert block(network="198.51.100.9").network == "198.51.100.9/32"
    assert block(network="2001:DB8::1").network == "2001:db8::1/128"
    assert block(network="::ffff:198.51.100.10").network == "198.51.100.10/32"


def test_device_block_matches_device_from_any_ip(ctx):
    ref = block(device_id="dev-1").reference
    assert found("203.0.113.1", "dev-1") == ref
    assert found("2001:db8::1", "dev-1") == ref
    assert found("203.0.113.1", "dev-2") is None
    assert found("203.0.113.1") is None


def test_local_ip_narrows_a_block(ctx):
    ref = block(network="203.0.113.0/24", local_ip="192.168.1.10").reference
    assert found("203.0.113.5", local="192.168.1.10") == ref
    assert found("203.0.113.5", local="192.168.1.11") is None
    assert found("203.0.113.5") is None


def test_unnarrowed_block_applies_whatever_the_local_ip(ctx):
    ref = block(device_id="dev-1").reference
    assert found(device="dev-1", local="10.0.0.2") == ref


def test_newest_matching_block_wins(ctx, monkeypatch):
    now = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: now)
    block(network="203.0.113.0/24")
    monkeypatch.setattr(clock, "utcnow", lambda: now + timedelta(seconds=1))
    newer = block(device_id="dev-1").reference
    assert found("203.0.113.5", "dev-1") == newer


def test_expired_block_stops_applying_without_any_job(ctx, monkeypatch):
    now = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: now)
    ref = block(network="203.0.113.7", minutes=30).reference
    monkeypatch.setattr(clock, "utcnow", lambda: now + timedelta(minutes=29, seconds=59))
    assert found("203.0.113.7") == ref
    monkeypatch.setattr(clock, "utcnow", lambda: now + timedelta(minutes=30))
    assert found("203.0.113.7") is None


def test_lifted_block_stops_applying_and_cannot_be_lifted_twice(ctx):
    ref = block(network="203.0.113.7").reference
    service.lift_block(ref, reason="keliru")
    db.session.commit()
    assert found("203.0.113.7") is None
    lifted = service.get_block(ref)
    assert lifted.lifted_at is not None and lifted.lift_reason == "keliru"
    with pytest.raises(InvalidState):
        service.lift_block(ref)


@pytest.mark.parametrize("kwargs,field", [
    ({}, "target"),
    ({"network": "10.0.0.1", "device_id": "d"}, "target"),
    ({"network": "10.0.0.1/8"}, "ip"),
    ({"network": "nonsense"}, "ip"),
])
def test_create_block_refuses_bad_targets(ctx, kwargs, field):
    with pytest.raises(ValidationFailed) as caught:
        service.create_block(**kwargs)
    assert field in caught.value.errors


def test_expiry_in_the_past_is_refused(ctx):
    with pytest.raises(ValidationFailed) as caught:
        service.create_block(network="10.0.0.1", expires_at=clock.utcnow() - timedelta(seconds=1))
    assert "expires_at" in caught.value.errors


def test_lift_matching_ignores_narrowing_and_spares_others(ctx):
    narrowed = block(network="203.0.113.0/24", local_ip="192.168.1.10").reference
    device = block(device_id="dev-1").reference
    other = block(network="198.51.100.0/24").reference
    lifted = service.lift_blocks(service.blocks_on_client("203.0.113.5", "dev-1"), reason="banding")
    db.session.commit()
    assert {b.reference for b in lifted} == {narrowed, device}
    assert service.get_block(other).lifted_at is None


def test_candidate_networks_agree_with_ipaddress():
    rng = random.Random(5)
    addresses = ["0.0.0.0", "255.255.255.255", "::", "::1", "1::", "2001:db8::", "::ffff:1.2.3.4"]
    addresses += [str(ipaddress.IPv4Address(rng.getrandbits(32))) for _ in range(200)]
    for _ in range(500):  # many zero groups, to exercise the "::" placement
        groups = [rng.choice([0, 0, 0, 1, 0xFFFF, rng.getrandbits(16)]) for _ in range(8)]
        addresses.append(str(ipaddress.IPv6Address(sum(g << (16 * (7 - i)) for i, g in enumerate(groups)))))
    for text in addresses:
        address = ipaddress.ip_address(text)
        address = getattr(address, "ipv4_mapped", None) or address
        # Each shorter prefix is ipaddress's supernet of the one before (much
        # quicker than parsing "address/length" afresh for each of 129 lengths).
        expected, network = [canonical_network(f"{address}/{address.max_prefixlen}")], ipaddress.ip_network(address)
        while network.prefixlen:
            network = network.supernet()
            expected.append(network.with_prefixlen)
        assert candidate_networks(text) == tuple(expected), text
