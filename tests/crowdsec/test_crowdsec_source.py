"""CrowdSec as a source of blocks: LAPI decisions become blocks; an approval deletes its decision by id.

The tests marked ``crowdsec`` run Debian's crowdsec as the Local API
(tests/support/crowdsec_lapi.py); the others feed decisions to the service directly.
"""
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from guardsvc.blocks.models import Block
from guardsvc.crowdsec import source, worker
from guardsvc.crowdsec.models import DecisionDeletion
from guardsvc.extensions import db
from guardsvc.storage import clock
from tests.support.blocks_helpers import from_ip
from tests.support.live import ROOT, wait_for

FLASK = str(Path(sys.executable).with_name("flask"))

BANNED, RANGE, IN_RANGE = "192.0.2.44", "198.51.100.0/24", "198.51.100.9"


def ban(decision_id, value, duration="1h0m0s", scope="Ip", kind="ban"):
    return {"id": decision_id, "value": value, "duration": duration, "scope": scope, "type": kind,
            "origin": "crowdsec", "scenario": "crowdsecurity/ssh-bf"}


def imported(app):
    """``{network: (decision id, active now)}`` of the blocks imported from CrowdSec."""
    with app.app_context():
        blocks = db.session.scalars(select(Block).where(Block.origin == "crowdsec")).all()
        found = {block.network: (block.source_decision_id, block.is_active_at(clock.utcnow())) for block in blocks}
        db.session.remove()
        return found


def test_bans_on_ips_and_ranges_become_blocks_and_the_rest_is_left(app, ctx):
    created, _ = source.apply_decisions([
        ban(1, BANNED, "3h59m58.5s"), ban(2, RANGE, scope="Range"), ban(3, "192.0.2.45", kind="captcha"),
        ban(4, "ID", scope="Country"), ban(5, "not-an-ip"), ban(6, "192.0.2.46", duration="-1s"),
        {"id": 7}], [])
    db.session.commit()
    assert {(block.network, block.source_decision_id) for block in created} == {
        (f"{BANNED}/32", 1), (RANGE, 2)}
    block = next(block for block in created if block.source_decision_id == 1)
    left = block.expires_at - clock.utcnow()
    assert timedelta(hours=3, minutes=59) < left <= timedelta(hours=4)
    assert block.reason.startswith("Keputusan CrowdSec #1") and "ssh-bf" in block.reason
    # The same decisions again (a later full pull): nothing new.
    assert source.apply_decisions([ban(1, BANNED), ban(2, RANGE, scope="Range")], [])[0] == []


def test_deleted_decisions_and_a_full_pull_lift_their_blocks_but_a_lift_here_stands(app, ctx):
    from guardsvc.blocks.service import lift_block

    first, second, third = (source.apply_decisions([ban(n, f"192.0.2.{n}")], [])[0][0] for n in (1, 2, 3))
    _, lifted = source.apply_decisions([], [ban(1, "192.0.2.1", duration="-2s")])
    assert [block.reference for block in lifted] == [first.reference]
    assert "#1" in lifted[0].lift_reason
    # A full pull lists every active decision: decision 2 is missing, so it ended while nobody pulled.
    _, lifted = source.apply_decisions([ban(3, "192.0.2.3")], [], complete=True)
    assert [block.reference for block in lifted] == [second.reference]
    lift_block(third.reference)
    assert source.apply_decisions([ban(3, "192.0.2.3")], [], complete=True) == ([], [])


def test_imported_blocks_are_not_sent_back_in_guardsvc_s_own_stream(app, client, runner, make_block):
    with app.app_context():
        source.apply_decisions([ban(9, BANNED)], [])
        db.session.commit()
    own = make_block(network="203.0.113.7")
    key = runner.invoke(args=["bouncers", "add", "edge"]).output.strip().splitlines()[-1]
    answer = client.get("/crowdsec/v1/decisions/stream?startup=true", headers={"X-Api-Key": key}).get_json()
    assert [decision["scenario"] for decision in answer["new"]] == [f"guardsvc/{own}"]
    # ... while guardsvc's guard enforces them all the same.
    assert client.get("/api/auth/tokens", **from_ip(BANNED)).status_code == 403


def test_only_crowdsec_blocks_lifted_by_an_approval_are_queued_for_deletion(app, ctx, make_block):
    imported_blocks = [source.apply_decisions([ban(n, f"192.0.2.{n}")], [])[0][0] for n in (1, 2)]
    db.session.commit()
    own = Block(reference="BLK-0000AAAA", network="192.0.2.3/32")
    queued = source.queue_decision_deletions(imported_blocks + [own])
    assert [job.decision_id for job in queued] == [1, 2]
    assert source.queue_decision_deletions(imported_blocks[:1]) == []  # queued once


# Against Debian's crowdsec LAPI.

@pytest.fixture()
def lapi_settings(app, lapi_clean, monkeypatch):
    for name, value in lapi_clean.settings.items():
        monkeypatch.setitem(app.config, name, value)
    monkeypatch.setitem(app.config, "CROWDSEC_RETRY_SECONDS", 1)
    app.extensions.pop("guardsvc.crowdsec_in_step", None)
    return lapi_clean


def approve(runner, make_ticket, ip):
    number = make_ticket(ip=ip).ticket_number
    result = runner.invoke(args=["tickets", "decide", number, "--approve"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.crowdsec
def test_lapi_decisions_become_blocks_and_an_approval_deletes_exactly_its_decision(
        app, client, runner, make_ticket, lapi_settings):
    server = lapi_settings
    server.cscli("decisions", "add", "--ip", BANNED, "--duration", "2h", "--reason", "ssh brute force")
    server.cscli("decisions", "add", "--range", RANGE, "--duration", "1h")
    server.cscli("decisions", "add", "--ip", "192.0.2.45", "--type", "captcha")
    ids = server.decisions()
    result = runner.invoke(args=["crowdsec", "pull"])
    assert result.exit_code == 0 and "created 2" in result.output, result.output
    assert imported(app) == {f"{BANNED}/32": (ids[BANNED], True), RANGE: (ids[RANGE], True)}
    blocked = client.get("/api/auth/tokens", **from_ip(BANNED))
    assert blocked.status_code == 403 and blocked.get_json()["blocked"] is True

    assert "lifted" in approve(runner, make_ticket, BANNED)  # the block on exactly this IP
    approve(runner, make_ticket, IN_RANGE)  # a range is never lifted by an approval
    assert imported(app) == {f"{BANNED}/32": (ids[BANNED], False), RANGE: (ids[RANGE], True)}
    with app.app_context():
        assert db.session.scalars(select(DecisionDeletion.decision_id)).all() == [ids[BANNED]]
    assert "confirmed 1" in runner.invoke(args=["crowdsec", "delete-decisions"]).output
    remaining = server.decisions()
    assert BANNED not in remaining and RANGE in remaining  # by id: the range decision is untouched

    # Deleted there: the next (delta) pull lifts the range block here.
    server.cscli("decisions", "delete", "--id", str(ids[RANGE]))
    with app.app_context():
        created, lifted = worker.pull_round()
        assert (created, [block.network for block in lifted]) == ([], [RANGE])
        db.session.remove()
    assert imported(app)[RANGE] == (ids[RANGE], False)


@pytest.mark.crowdsec
def test_a_deletion_is_retried_until_the_lapi_confirms(app, ctx, runner, lapi_settings, monkeypatch):
    server = lapi_settings
    server.cscli("decisions", "add", "--ip", BANNED, "--duration", "2h")
    decision_id = server.decisions()[BANNED]
    block = source.apply_decisions(*worker.pull_decisions(startup=True))[0][0]
    source.queue_decision_deletions([block])
    source.queue_decision_deletions([Block(reference="BLK-0000BBBB", origin="crowdsec", source_decision_id=999999)])
    db.session.commit()
    monkeypatch.setitem(app.config, "CROWDSEC_LAPI_URL", "http://127.0.0.1:9")  # nothing listens there
    assert worker.deletion_round() == 0
    jobs = db.session.scalars(select(DecisionDeletion).order_by(DecisionDeletion.id)).all()
    assert [(job.attempts, job.confirmed_at) for job in jobs] == [(1, None), (1, None)]
    assert all(job.last_error and job.next_attempt_at > clock.utcnow() for job in jobs)
    assert server.decisions() == {BANNED: decision_id}
    monkeypatch.setitem(app.config, "CROWDSEC_LAPI_URL", server.url)
    assert worker.deletion_round() == 0  # not due yet
    later = clock.utcnow() + timedelta(seconds=2)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    assert worker.deletion_round() == 2  # one deleted, one the LAPI no longer has: both done
    assert server.decisions() == {}


@pytest.mark.crowdsec
@pytest.mark.live
def test_the_worker_imports_a_ban_within_seconds_and_deletes_it_after_an_approval(
        app, runner, make_ticket, lapi_clean):
    server = lapi_clean
    env = {**os.environ, **server.env, "GUARDSVC_CROWDSEC_PULL_SECONDS": "1", "GUARDSVC_MAIL_POLL_SECONDS": "1",
           "GUARDSVC_CROWDSEC_RETRY_SECONDS": "1", "GUARDSVC_LOG_LEVEL": "INFO"}
    process = subprocess.Popen([FLASK, "--app", "guardsvc", "worker"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        server.cscli("decisions", "add", "--ip", BANNED, "--duration", "2h")
        decision_id = server.decisions()[BANNED]
        wait_for(lambda: imported(app).get(f"{BANNED}/32") == (decision_id, True), "the block")
        approve(runner, make_ticket, BANNED)
        wait_for(lambda: BANNED not in server.decisions(), "the decision deleted on the LAPI")
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert process.returncode == 0, output
    assert "crowdsec: decision" in output and "worker stopped" in output

