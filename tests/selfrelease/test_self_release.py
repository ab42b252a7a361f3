"""Self-release over HTTP (contract section 14): who gets a challenge, what a proof releases, what it refuses."""
import base64
import json
from datetime import timedelta

import pytest

from guardsvc.blocks.models import AllowEntry
from guardsvc.extensions import db
from guardsvc.selfrelease.models import SelfRelease, UsedProof
from guardsvc.storage import clock
from tests.support.blocks_helpers import from_ip
from tests.support.self_release_support import CHALLENGE, RELEASE, solve

IP, NEIGHBOUR = "127.0.8.10", "127.0.8.11"
RANGE = "127.0.8.0/24"
DEVICE, OTHER_DEVICE = "ponsel-budi", "laptop-sari"
GUARDED = "/api/auth/tokens"  # 403 when blocked, 401 for a client that may pass


def as_client(ip=IP, device=DEVICE):
    return {"headers": {"X-Device-Id": device} if device else {}, **from_ip(ip)}


def challenge(client, **who):
    return client.get(CHALLENGE, **as_client(**who))


def release(client, payload, **who):
    return client.post(RELEASE, json={"altcha": payload}, **as_client(**who))


def solved(client, **who):
    answer = challenge(client, **who)
    assert answer.status_code == 200, answer.get_json()
    return solve(answer.get_json()["data"]["challenge"])


def guarded(client, **who):
    return client.get(GUARDED, **as_client(**who)).status_code


def test_a_self_releasable_block_is_released_by_its_proof_for_that_address_and_device(client, make_block, app):
    reference = make_block(network=RANGE, self_release=True)
    assert guarded(client) == 403
    answer = challenge(client)
    body = answer.get_json()
    assert answer.status_code == 200 and set(body["data"]) == {"challenge", "expires_at"}
    parameters = body["data"]["challenge"]["parameters"]
    assert parameters["algorithm"] == "PBKDF2/SHA-256" and parameters["data"]["blocks"] == reference
    assert DEVICE not in json.dumps(body) and IP not in json.dumps(body)  # bound by a keyed digest only
    released = release(client, solve(body["data"]["challenge"]))
    assert released.status_code == 201, released.get_json()
    assert released.get_json()["data"]["references"] == [reference]
    assert guarded(client) == 401  # through
    assert guarded(client, device=OTHER_DEVICE) == 403  # the same address, another device: still blocked
    assert guarded(client, ip=NEIGHBOUR) == 403  # the same device, another address: still blocked
    with app.app_context():
        entry = db.session.query(AllowEntry).one()
        assert (entry.network, entry.paired_device_id, entry.made_by) == (f"{IP}/32", DEVICE, "self_release")
        hours = (entry.expires_at - entry.created_at) / timedelta(hours=1)
        assert round(hours) == app.config["SELF_RELEASE_HOURS"] == 24


def test_the_host_check_honours_the_release(client, make_block, bearer):
    make_block(network=RANGE, self_release=True)
    _, admin = bearer("admin")
    check = f"/api/guard/blocks/check?ip={IP}&device_id={DEVICE}"
    assert client.get(check, headers=admin).get_json()["data"]["blocked"] is True
    assert release(client, solved(client)).status_code == 201
    assert client.get(check, headers=admin).get_json()["data"]["blocked"] is False
    other = f"/api/guard/blocks/check?ip={IP}&device_id={OTHER_DEVICE}"
    assert client.get(other, headers=admin).get_json()["data"]["blocked"] is True


def test_a_block_made_after_the_release_wins(client, make_block):
    make_block(network=RANGE, self_release=True)
    assert release(client, solved(client)).status_code == 201
    assert guarded(client) == 401
    make_block(device_id=DEVICE)
    assert guarded(client) == 403


def test_a_block_that_is_not_self_releasable_means_appeal(client, make_block):
    make_block(network=RANGE, self_release=True)
    reference = make_block(network=f"{IP}/32")  # an administrator's own block beside it
    answer = challenge(client)
    body = answer.get_json()
    assert answer.status_code == 403 and body["reference"] == reference
    assert body["appeal_url"] == f"/banding?ref={reference}" and body["appeal_url"] in body["message"]


def test_a_client_that_is_not_blocked_gets_409(client, make_block):
    make_block(network=RANGE, self_release=True)
    assert challenge(client, ip="127.0.9.1").status_code == 409


def test_a_release_needs_a_device(client, make_block):
    make_block(network=RANGE, self_release=True)
    answer = challenge(client, device=None)
    assert answer.status_code == 422 and "X-Device-Id" in answer.get_json()["errors"]


def test_a_payload_is_used_once(client, make_block, app):
    make_block(network=RANGE, self_release=True)
    payload = solved(client)
    assert release(client, payload).status_code == 201
    with app.app_context():  # the cooldown would refuse it too: lift it out of the way
        db.session.query(SelfRelease).update({"created_at": clock.utcnow() - timedelta(days=30)})
        db.session.query(AllowEntry).update({"removed_at": clock.utcnow()})
        db.session.commit()
    again = release(client, payload)
    assert again.status_code == 409 and "sudah dipakai" in again.get_json()["message"]


def test_a_payload_for_another_client_is_refused_and_creates_nothing(client, make_block, app):
    make_block(network=RANGE, self_release=True)
    payload = solved(client, ip=NEIGHBOUR)
    for who in ({"ip": IP}, {"ip": NEIGHBOUR, "device": OTHER_DEVICE}):
        answer = release(client, payload, **who)
        assert answer.status_code == 403 and "perangkat lain" in answer.get_json()["errors"]["altcha"][0]
    with app.app_context():
        assert db.session.query(AllowEntry).count() == db.session.query(UsedProof).count() == 0


def test_a_wrong_or_unreadable_payload_is_refused(client, make_block):
    make_block(network=RANGE, self_release=True)
    payload = json.loads(base64.b64decode(solved(client)))
    payload["solution"]["derivedKey"] = "00" * 32
    wrong = release(client, base64.b64encode(json.dumps(payload).encode()).decode())
    # Base64, as the API document asks: what it proves is refused as a proof (403), not as a field.
    assert wrong.status_code == 403 and wrong.get_json()["errors"]["altcha"] == ["Bukti kerja tidak sah."]
    payload = json.loads(base64.b64decode(solved(client)))
    payload["challenge"]["parameters"]["cost"] = 0  # cheaper work: the signature no longer holds
    assert release(client, base64.b64encode(json.dumps(payload).encode()).decode()).status_code == 403
    unreadable = release(client, base64.b64encode(b"[1, 2]").decode())
    assert unreadable.status_code == 403 and "tidak terbaca" in unreadable.get_json()["errors"]["altcha"][0]
    for junk in ("not base64!", "YWJj\n", " YWJj", "YWJjZA", "YWJjZA=", ""):  # not base64 text: the field
        refused = release(client, junk)
        assert refused.status_code == 422 and refused.get_json()["errors"]["altcha"], junk
    assert client.post(RELEASE, json={}, **as_client()).get_json()["errors"]["altcha"]


def test_an_expired_challenge_is_refused(client, make_block, monkeypatch):
    make_block(network=RANGE, self_release=True)
    payload = solved(client)
    import time
    later = time.time() + 301
    monkeypatch.setattr(time, "time", lambda: later)
    answer = release(client, payload)
    assert answer.status_code == 403 and "kedaluwarsa" in answer.get_json()["errors"]["altcha"][0]


def test_a_new_block_after_the_challenge_needs_a_new_challenge(client, make_block):
    make_block(network=RANGE, self_release=True)
    payload = solved(client)
    make_block(device_id=DEVICE, self_release=True)
    answer = release(client, payload)
    assert answer.status_code == 409 and "berubah" in answer.get_json()["message"]
    assert release(client, solved(client)).status_code == 201  # a fresh one names both


def test_once_per_device_and_per_address_per_cooldown(client, make_block, app):
    make_block(network=RANGE, self_release=True)
    assert release(client, solved(client)).status_code == 201
    make_block(device_id=DEVICE, self_release=True)  # blocked again: the release yields to it
    used_up = challenge(client)
    assert used_up.status_code == 429 and 0 < int(used_up.headers["Retry-After"]) <= 7 * 86400
    assert used_up.get_json()["appeal_url"].startswith("/banding?ref=")
    assert challenge(client, device=OTHER_DEVICE).status_code == 429  # the address is used up too
    make_block(device_id="tablet-dewi", self_release=True)
    # Neither used (an address outside the range: its neighbour in the range counts by the range's network).
    assert challenge(client, ip="127.0.9.11", device="tablet-dewi").status_code == 200
    with app.app_context():
        db.session.query(SelfRelease).update({"created_at": clock.utcnow() - timedelta(days=7, minutes=1)})
        db.session.commit()
    assert challenge(client).status_code == 200


def test_an_ipv6_address_is_counted_by_its_64(client, make_block):
    make_block(network="2001:db8::/32", self_release=True)
    first = {"ip": "2001:db8:5:1::10", "device": "ponsel-a"}
    assert release(client, solved(client, **first), **first).status_code == 201
    assert challenge(client, ip="2001:db8:5:1::99", device="ponsel-b").status_code == 429
    # Another /48 under the /32 is another network (one /48 is counted by tests/selfrelease/test_self_release_networks.py).
    assert challenge(client, ip="2001:db8:6:2::10", device="ponsel-b").status_code == 200


def test_the_hourly_cap_sends_everyone_to_the_appeal_form(client, make_block, monkeypatch, app):
    monkeypatch.setitem(app.config, "SELF_RELEASE_PER_HOUR", 2)
    for n in range(3):  # three networks, each under a block of its own
        make_block(network=f"127.0.{8 + n}.0/24", self_release=True)
    for n in range(2):
        who = {"ip": f"127.0.{8 + n}.20", "device": f"perangkat-{n}"}
        assert release(client, solved(client, **who), **who).status_code == 201
    late = {"ip": "127.0.10.30", "device": "perangkat-late"}
    closed = challenge(client, **late)
    assert closed.status_code == 429 and "terlalu banyak" in closed.get_json()["message"]
    assert 0 < int(closed.headers["Retry-After"]) <= 3600
    with app.app_context():
        db.session.query(SelfRelease).update({"created_at": clock.utcnow() - timedelta(minutes=61)})
        db.session.commit()
    assert challenge(client, **late).status_code == 200


def test_a_proof_solved_before_the_cap_filled_is_refused_after(client, make_block, monkeypatch, app):
    monkeypatch.setitem(app.config, "SELF_RELEASE_PER_HOUR", 1)
    make_block(network=RANGE, self_release=True)
    make_block(network="127.0.9.0/24", self_release=True)
    early = solved(client)
    other = {"ip": "127.0.9.11", "device": OTHER_DEVICE}  # another network, under another block
    assert release(client, solved(client, **other), **other).status_code == 201
    assert release(client, early).status_code == 429
    with app.app_context():
        assert db.session.query(AllowEntry).count() == 1 and db.session.query(UsedProof).count() == 1


def test_the_release_is_audited_counted_and_sent_as_a_webhook(client, make_block, app):
    from guardsvc.audit.models import AuditEvent
    from guardsvc.webhooks.service import add_endpoint
    from guardsvc.webhooks.models import HookDelivery
    from guardsvc.web.identity import fingerprint

    with app.app_context():
        add_endpoint("https://hooks.example.com/guardsvc", events="block.self_released")
        db.session.commit()
    try:
        reference = make_block(network=RANGE, self_release=True)
        assert release(client, solved(client)).status_code == 201
        with app.app_context():
            event = db.session.query(AuditEvent).filter_by(action="block.self_released").one()
            assert event.target == reference and IP not in (event.details or "")
            delivery = db.session.query(HookDelivery).filter_by(event_type="block.self_released").one()
            data = json.loads(delivery.body)["data"]
            assert data["references"] == [reference] and data["network"] == f"{IP}/32"
            # A device as events name it: its fingerprint, even a name the client gave itself.
            assert data["device"] == fingerprint(DEVICE) and DEVICE not in delivery.body
    finally:
        with app.app_context():
            from tests.conftest import _read_webhook_subscriptions
            db.session.query(HookDelivery).delete()
            db.session.commit()
            _read_webhook_subscriptions()


def test_the_openapi_document_names_both_operations(client):
    paths = client.get("/api/openapi.json").get_json()["paths"]
    assert set(paths["/api/guard/self-release/challenge"]["get"]["responses"]) >= {"200", "403", "409", "429"}
    assert set(paths["/api/guard/self-release"]["post"]["responses"]) >= {"201", "403", "409", "422", "429"}


@pytest.mark.parametrize("origin, releasable", [("CAPI", True), ("lists", True), ("crowdsec", False),
                                                ("cscli", False)])
def test_crowdsec_decisions_of_the_configured_origins_are_self_releasable(ctx, origin, releasable):
    from guardsvc.crowdsec.source import apply_decisions

    decision = {"id": 41, "origin": origin, "type": "ban", "scope": "Ip", "value": "192.0.2.41",
                "duration": "3h59m0s", "scenario": "crowdsecurity/ssh-bf"}
    (block,), _ = apply_decisions([decision], [])
    assert block.self_release is releasable and block.source_origin == origin


def test_releases_and_refusals_are_counted_in_the_metrics(client, make_block):
    from prometheus_client import REGISTRY

    def count(outcome):
        return REGISTRY.get_sample_value("guardsvc_self_releases_total", {"outcome": outcome}) or 0

    make_block(network=RANGE, self_release=True)
    released, refused, challenges = count("released"), count("proof_unreadable"), REGISTRY.get_sample_value(
        "guardsvc_self_release_challenges_total") or 0
    assert release(client, "a2FjYXU=").status_code == 403  # base64 of "kacau"
    assert release(client, solved(client)).status_code == 201
    assert (count("released"), count("proof_unreadable")) == (released + 1, refused + 1)
    assert REGISTRY.get_sample_value("guardsvc_self_release_challenges_total") == challenges + 1
