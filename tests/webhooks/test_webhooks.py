"""Signed webhooks: endpoints on the command line, events queued in their transaction, delivered
to a real receiver on loopback that verifies every signature with the standardwebhooks package."""
import base64
import json
import re
import socket
import time
from datetime import timedelta

import pytest
from sqlalchemy import event, select, text
from sqlalchemy.exc import IntegrityError

from guardsvc.appeals import service as appeals
from guardsvc.blocks import service as blocks
from guardsvc.extensions import db
from guardsvc.signin import service as signin
from guardsvc.storage import clock
from guardsvc.web.identity import Client
from guardsvc.webhooks import delivery
from guardsvc.webhooks.models import EVENTS, HookDelivery
from guardsvc.webhooks.service import queue_event
from tests.support.factories import PASSWORD, submit_ticket
from tests.support.live import all_at_once
from tests.support.webhook_receiver import Receiver, private_targets_allowed, receiver  # noqa: F401

# These deliver to a receiver on loopback (tests/webhooks/test_webhook_targets_live.py: the refusal of private targets).
pytestmark = pytest.mark.usefixtures("private_targets_allowed")
SECRET = re.compile(r"whsec_[A-Za-z0-9+/]{43}=")


def cli(runner, *args):
    return runner.invoke(args=["webhooks", *args])


def add(runner, url, events=None):
    """``webhooks add``; returns (endpoint id, secret)."""
    result = cli(runner, "add", url, *(["--events", events] if events else []))
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert SECRET.fullmatch(lines[-1]), result.output
    return int(re.match(r"webhook (\d+) added", lines[0]).group(1)), lines[-1]


def deliver(runner):
    result = cli(runner, "deliver")
    assert result.exit_code == 0, result.output
    return result.output.strip()


def rows(app):
    with app.app_context():
        found = db.session.scalars(select(HookDelivery).order_by(HookDelivery.id)).all()
        db.session.expunge_all()
        return found


def at(monkeypatch, moment):
    monkeypatch.setattr(clock, "utcnow", lambda: moment)


def test_add_list_remove_on_the_command_line(app, runner):
    endpoint_id, secret = add(runner, "https://hooks.example.org/guardsvc", "block.lifted,ticket.submitted")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    listed = cli(runner, "list", "--json")
    assert listed.exit_code == 0
    assert json.loads(listed.output) == [{
        "id": endpoint_id, "url": "https://hooks.example.org/guardsvc", "events": "ticket.submitted,block.lifted",
        "state": "enabled", "created_at": json.loads(listed.output)[0]["created_at"], "pending": 0, "failed": 0}]
    assert secret not in cli(runner, "list").output
    with app.app_context():  # sealed at rest: the database alone does not give it away
        stored = db.session.execute(text("SELECT secret FROM webhook_endpoints")).scalar_one()
    assert secret not in stored and secret.removeprefix("whsec_") not in stored
    _, every = add(runner, "http://127.0.0.1:9/")  # no --events: every event
    assert every != secret
    assert cli(runner, "list").output.splitlines()[2].split("\t")[2] == ",".join(EVENTS)
    assert "disabled" in cli(runner, "disable", str(endpoint_id)).output
    assert cli(runner, "list").output.splitlines()[1].split("\t")[3] == "disabled"
    assert cli(runner, "remove", str(endpoint_id)).exit_code == 0
    assert [line.split("\t")[0] for line in cli(runner, "list").output.splitlines()[1:]] == [str(endpoint_id + 1)]
    missing = cli(runner, "remove", str(endpoint_id))
    assert missing.exit_code == 1 and "Webhook tidak ditemukan." in missing.output


@pytest.mark.parametrize("args, says", [
    (["ftp://example.org/hook"], "http:// atau https://"),
    (["example.org/hook"], "http:// atau https://"),
    (["https://user:password@example.org/hook"], "tanpa nama pengguna"),
    (["https://example.org:99999/hook"], "http:// atau https://"),
    (["https://example.org/hook", "--events", "ticket.submitted,ticket.deleted"],
     "tidak dikenal: ticket.deleted. Pilihan: " + ", ".join(EVENTS)),
])
def test_bad_input_is_a_usage_error(app, runner, args, says):
    result = cli(runner, "add", *args)
    assert result.exit_code == 2 and says in result.output and "Traceback" not in result.output, result.output
    assert json.loads(cli(runner, "list", "--json").output) == []


def test_every_event_arrives_signed_with_references_and_no_personal_data(app, client, runner, receiver,  # noqa: F811
                                                                         make_user):
    _, secret = add(runner, receiver.url)
    reference = blocks_add(runner, "203.0.113.7")
    response = submit_ticket(client, ip="203.0.113.7", name="Budi Santoso", email="budi@example.com")
    number = response.get_json()["ticket_number"]
    assert runner.invoke(args=["tickets", "decide", number, "--approve"]).exit_code == 0
    user = make_user(email="sari@example.com")
    with app.app_context():
        signin.sign_in(user.email, PASSWORD, Client("198.51.100.20", "laptop-1", None, "curl/8"))  # first: no alert
        signin.sign_in(user.email, PASSWORD, Client("192.0.2.44", "phone-2", None, "Mozilla/5.0 (Android)"))
        db.session.commit()
    assert deliver(runner) == "delivered 5, retrying 0, failed 0"
    events = {request.event["type"]: request.verified(secret) for request in receiver.requests}
    assert list(events) == ["block.created", "ticket.submitted", "block.lifted", "ticket.decided", "signin.new_device"]
    assert all(request.path == "/hooks/guardsvc?via=test" for request in receiver.requests)
    assert len(receiver.ids()) == 5
    site = app.config["BASE_URL"]
    assert events["block.created"]["data"] == {
        "reference": reference, "kind": "ip", "network": "203.0.113.7/32", "device": None, "narrowed": False,
        "origin": "guardsvc", "created_at": events["block.created"]["data"]["created_at"], "expires_at": None,
        "lifted_at": None, "site": site}
    assert events["block.lifted"]["data"]["lifted_at"] is not None
    submitted = events["ticket.submitted"]["data"]
    assert submitted == {"ticket_number": number, "status": "pending", "submitted_at": submitted["submitted_at"],
                         "decided_at": None, "block_reference": reference,
                         "url": f"{site}/admin/tiket/{number}", "site": site}
    decided = events["ticket.decided"]["data"]
    assert (decided["status"], decided["access_opened"], decided["lifted_blocks"], decided["allow_entries"]) == (
        "approved", True, [reference], 0)
    new_device = events["signin.new_device"]["data"]
    assert (new_device["account_id"], new_device["ip_address"], new_device["system"]) == (user.id, "192.0.2.44",
                                                                                          "Android")
    everything = " ".join(request.body for request in receiver.requests)
    for personal in ("Budi", "budi@example.com", "sari@example.com", "0812", "Saya tidak", "whsec_"):
        assert personal not in everything
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", events["ticket.submitted"]["timestamp"])
    assert {row.status for row in rows(app)} == {"delivered"} and {row.body for row in rows(app)} == {""}


def blocks_add(runner, ip):
    result = runner.invoke(args=["blocks", "add", "--ip", ip])
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


def test_only_subscribed_enabled_endpoints_get_an_event(app, runner, receiver):  # noqa: F811
    lifts, lift_secret = add(runner, receiver.url.replace("?via=test", "/lifts"), "block.lifted")
    add(runner, receiver.url.replace("?via=test", "/tickets"), "ticket.submitted")
    paused, _ = add(runner, receiver.url.replace("?via=test", "/paused"), "block.lifted")
    cli(runner, "disable", str(paused))
    reference = blocks_add(runner, "198.51.100.9")
    assert rows(app) == []  # block.created: nobody asked for it
    assert runner.invoke(args=["blocks", "lift", reference]).exit_code == 0
    assert [(row.endpoint_id, row.event_type) for row in rows(app)] == [(lifts, "block.lifted")]
    assert deliver(runner) == "delivered 1, retrying 0, failed 0"
    [request] = receiver.requests
    assert request.path == "/hooks/guardsvc/lifts" and request.verified(lift_secret)["data"]["reference"] == reference


def test_an_event_is_queued_only_when_its_transaction_commits(app, client, runner):
    add(runner, "http://127.0.0.1:9/", "ticket.submitted,block.created")
    with app.app_context():
        blocks.create_block(network="203.0.113.5", reason="x")
        appeals.submit_ticket(Client("203.0.113.5", None, None, "pytest"), name="A", email="a@example.com",
                              reason="r")
        assert db.session.scalar(select(HookDelivery.id).limit(1)) is not None  # in the transaction
        db.session.rollback()
    assert rows(app) == []
    assert submit_ticket(client, device="d-1").status_code == 201
    assert submit_ticket(client, device="d-1").status_code == 429  # refused: its writes are undone
    assert [row.event_type for row in rows(app)] == ["ticket.submitted"]


def test_with_nobody_subscribed_an_event_costs_no_statement(app, runner):
    seen = []

    def record(*args):
        seen.append(args[2])

    def describe():
        raise AssertionError("built although nobody wants it")

    add(runner, "http://127.0.0.1:9/", "block.lifted")
    with app.app_context():
        queue_event("block.lifted", lambda: {})  # reads the subscriptions once, queues one row
        event.listen(db.engine, "before_cursor_execute", record)
        try:
            for _ in range(3):
                assert queue_event("ticket.submitted", describe) is None
        finally:
            event.remove(db.engine, "before_cursor_execute", record)
        db.session.rollback()
    assert seen == []


def test_one_row_per_endpoint_and_event_id(app, runner):
    endpoint_id, _ = add(runner, "http://127.0.0.1:9/")
    with app.app_context():
        row = dict(endpoint_id=endpoint_id, event_id="msg_x", event_type="block.created", body="{}",
                   status="pending", attempts=0, next_attempt_at=clock.utcnow(), created_at=clock.utcnow())
        db.session.add(HookDelivery(**row))
        db.session.commit()
        db.session.add(HookDelivery(**row))
        with pytest.raises(IntegrityError):
            db.session.commit()
        db.session.rollback()


def test_two_delivery_rounds_at_once_send_each_event_once(app, runner, receiver):  # noqa: F811
    _, secret = add(runner, receiver.url, "block.created")
    with app.app_context():
        for n in range(30):
            blocks.create_block(network=f"192.0.2.{n}")
        db.session.commit()
    receiver.delay = 0.005

    def round_(_):
        with app.app_context():
            try:
                return delivery.deliver_due(limit=4)
            finally:
                db.session.remove()

    reports = all_at_once(2, round_)
    assert sorted(len(report.sent) for report in reports)[0] > 0, "the rounds did not overlap"
    assert sum(len(report.sent) for report in reports) == 30
    assert len(receiver.ids()) == 30 and max(receiver.ids().values()) == 1
    assert all(request.verified(secret) for request in receiver.requests)
    assert {row.status for row in rows(app)} == {"delivered"}


def test_a_receiver_that_was_down_gets_the_event_after_retries(app, runner, monkeypatch):
    down = Receiver()  # not started: connection refused
    _, secret = add(runner, down.url, "block.created")
    start = clock.utcnow()
    at(monkeypatch, start)
    blocks_add(runner, "203.0.113.20")
    assert deliver(runner) == "delivered 0, retrying 1, failed 0"
    [row] = rows(app)
    assert row.attempts == 1 and "ConnectionRefusedError" in row.last_error
    first_wait = row.next_attempt_at - start
    assert timedelta(seconds=24) <= first_wait <= timedelta(seconds=36)  # 30 s, give or take a fifth
    down.statuses = [500]
    down.start()
    try:
        assert deliver(runner) == "delivered 0, retrying 0, failed 0"  # not due yet: not even tried
        assert down.requests == []
        at(monkeypatch, start + timedelta(seconds=37))
        assert deliver(runner) == "delivered 0, retrying 1, failed 0"
        [row] = rows(app)
        assert row.attempts == 2 and row.last_error == "HTTP 500: ok"
        assert timedelta(seconds=48) <= row.next_attempt_at - (start + timedelta(seconds=37)) <= timedelta(seconds=72)
        at(monkeypatch, start + timedelta(seconds=37 + 73))
        assert deliver(runner) == "delivered 1, retrying 0, failed 0"
    finally:
        down.stop()
    first, second = down.requests
    assert first.id == second.id  # the same event, retried
    assert first.verified(secret) == second.verified(secret)
    assert int(second.headers["webhook-timestamp"]) - int(first.headers["webhook-timestamp"]) == 73
    [row] = rows(app)
    assert (row.status, row.attempts, row.last_error) == ("delivered", 3, None)


def test_a_webhook_is_given_up_on_after_the_last_attempt(app, runner, receiver, monkeypatch):  # noqa: F811
    monkeypatch.setitem(app.config, "WEBHOOK_MAX_ATTEMPTS", 2)
    add(runner, receiver.url, "block.created")
    receiver.statuses = [503, 503, 503]
    blocks_add(runner, "203.0.113.21")
    assert deliver(runner) == "delivered 0, retrying 1, failed 0"
    at(monkeypatch, clock.utcnow() + timedelta(hours=1))
    assert deliver(runner) == "delivered 0, retrying 0, failed 1"
    [row] = rows(app)
    assert (row.status, row.attempts, row.body, row.last_error) == ("failed", 2, "", "HTTP 503: ok")
    assert json.loads(cli(runner, "list", "--json").output)[0]["failed"] == 1
    at(monkeypatch, clock.utcnow() + timedelta(days=1))
    assert deliver(runner) == "delivered 0, retrying 0, failed 0" and len(receiver.requests) == 2


def test_a_receiver_that_never_answers_costs_the_timeout_and_no_more(app, runner, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOK_TIMEOUT_SECONDS", 0.3)
    with socket.socket() as silent:  # accepts connections (the kernel does) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        add(runner, f"http://127.0.0.1:{silent.getsockname()[1]}/", "block.created")
        blocks_add(runner, "203.0.113.22")
        started = time.monotonic()
        assert deliver(runner) == "delivered 0, retrying 1, failed 0"
        assert time.monotonic() - started < 1.5
    assert rows(app)[0].last_error == "no answer within 0.3 s"


def test_removing_an_endpoint_drops_what_was_queued_for_it(app, runner):
    endpoint_id, _ = add(runner, "http://127.0.0.1:9/", "block.created")
    blocks_add(runner, "203.0.113.23")
    assert len(rows(app)) == 1
    assert cli(runner, "remove", str(endpoint_id)).exit_code == 0
    assert rows(app) == []
    blocks_add(runner, "203.0.113.24")  # nobody subscribes any more: nothing is queued
    assert rows(app) == []


def test_secrets_are_resealed_after_a_key_rotation_and_still_sign(app, runner, receiver, monkeypatch):  # noqa: F811
    _, secret = add(runner, receiver.url, "block.created")
    monkeypatch.setitem(app.config, "SECRET_KEY_FALLBACKS", [app.config["SECRET_KEY"]])
    monkeypatch.setitem(app.config, "SECRET_KEY", "a-new-secret-key-for-this-test")
    assert cli(runner, "reseal").output == "resealed 1 webhook secret(s)\n"
    monkeypatch.setitem(app.config, "SECRET_KEY_FALLBACKS", [])  # the old key is gone
    blocks_add(runner, "203.0.113.25")
    assert deliver(runner) == "delivered 1, retrying 0, failed 0"
    assert receiver.requests[0].verified(secret)["type"] == "block.created"
