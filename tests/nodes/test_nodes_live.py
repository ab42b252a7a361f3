"""Across nodes as across workers, proven with separate nodes (contract section 17).

Two nodes, each ``gunicorn wsgi:app`` with two workers and an instance folder of its own, on one
PostgreSQL database (a database of this module's own) and one Redis: a session made on one is valid
on the other; a block or a lift made on one is enforced by the other within 2 s; a rate limit is
exact over both; with a deliverer on each node every e-mail and webhook event goes out once; the
fleet is reported (one row a node, one write a node an interval) and a node with another shared
setting is named. Last, a node killed (SIGKILL) in the middle of a flood of submissions: nothing it
answered 201 is lost, and what its worker had claimed is delivered by the other node's worker once
the lease ends.
"""
import asyncio
import itertools
import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from guardsvc.accounts import service as accounts
from guardsvc.extensions import db
from guardsvc.webhooks import service as webhooks
from tests.support.blocks_helpers import PROXY_SECRET
from tests.support.factories import PASSWORD, SUBMIT, submit_body
from tests.support.fleet_support import (Database, Worker, dispose, migrate_in_process, needs_a_server_database, new_prefix,
                                 node_settings, separate_database, shared_limits, start_nodes)
from tests.support.live import all_at_once, wait_for
from tests.support.pages_support import CSRF_META
from tests.support.smtp import SmtpServer
from tests.support.webhook_receiver import Receiver

pytestmark = [pytest.mark.live, needs_a_server_database]
REPORT_SECONDS = 0.5
_addresses = itertools.count(1)

# Every write of a node's row, as the database saw it: test-only instrumentation of this module's database.
WRITES_LOG = """
CREATE TABLE node_writes (node_key text, previous timestamp, seen timestamp);
CREATE FUNCTION log_node_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO node_writes VALUES (NEW.node_key, CASE WHEN TG_OP = 'UPDATE' THEN OLD.last_seen_at END,
                                    NEW.last_seen_at);
    RETURN NULL;
END $$;
CREATE TRIGGER nodes_logged AFTER INSERT OR UPDATE ON nodes FOR EACH ROW EXECUTE FUNCTION log_node_write();
"""


def an_address():
    """A client address of its own (sent as X-Forwarded-For: the nodes trust one proxy)."""
    number = next(_addresses)
    return f"10.{number // 250 % 250}.{number % 250}.{7 + number // 62500}"


class Fleet:
    """The database, the in-process app bound to it (to make accounts), and the nodes."""

    def __init__(self, url, folder):
        self.url, self.folder = url, folder
        self.app = migrate_in_process(url)
        self.app.config["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = True
        self.database = Database(url)
        self.database.run(WRITES_LOG)
        self.prefix = new_prefix()
        self.settings = {name: self.node(name) for name in ("node-a", "node-b")}
        self.servers = start_nodes(self.settings)

    def node(self, name, **extra):
        return node_settings(self.url, self.folder, name, GUARDSVC_NODE_REPORT_SECONDS=str(REPORT_SECONDS),
                             **shared_limits(self.prefix), **extra)

    def worker(self, settings):
        return Worker(settings, self.folder / "workers" / f"{next(_addresses)}")

    def nodes_command(self):
        """``flask nodes`` on this database (the command itself, in this process)."""
        return self.app.test_cli_runner().invoke(args=["nodes"])

    def user(self, role="user"):
        with self.app.app_context():
            user = accounts.create_user(f"{role}{next(_addresses)}@example.com", "Pengguna Uji", PASSWORD, role)
            token, _ = accounts.create_token(user, "uji", client=None)
            db.session.commit()
            email = user.email
            db.session.remove()
        return email, {"Authorization": f"Bearer {token}"}

    def stop(self):
        for server in self.servers.values():
            server.stop()
        self.database.dispose()
        dispose(self.app)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    fleet = Fleet(separate_database("fleet"), tmp_path_factory.mktemp("fleet"))
    yield fleet
    fleet.stop()


def submit(server, address, **body):
    return requests.post(server.url + SUBMIT, json=submit_body(**body), timeout=30,
                         headers={"Accept": "application/json", "X-Forwarded-For": address})


def test_each_node_is_one_row_written_once_an_interval_and_the_nodes_agree(fleet):
    def names():
        return Counter(name for name, in fleet.database.rows("SELECT name FROM nodes"))

    wait_for(lambda: names() == {"node-a": 1, "node-b": 1}, "both nodes reported")
    time.sleep(6 * REPORT_SECONDS)
    assert names() == {"node-a": 1, "node-b": 1}  # two workers each, one row each
    writes = fleet.database.rows("SELECT n.name, w.previous, w.seen FROM node_writes w "
                                 "JOIN nodes n ON n.node_key = w.node_key WHERE w.previous IS NOT NULL")
    per_node = Counter(name for name, _, _ in writes)
    assert per_node["node-a"] >= 3 and per_node["node-b"] >= 3  # every interval, or near it
    gaps = [(seen - previous).total_seconds() for _, previous, seen in writes]
    assert min(gaps) >= 0.8 * REPORT_SECONDS - 0.001  # never two writes of a node within one interval
    a, b = (json.loads(text) for text, in fleet.database.rows("SELECT fingerprints FROM nodes ORDER BY name"))
    assert a == b and a["GUARDSVC_RATELIMIT_STORAGE_URI"]  # Redis under one prefix: shared
    listed = fleet.nodes_command()
    assert listed.exit_code == 0, listed.output
    assert sorted(line.split("\t")[0] for line in listed.output.splitlines()) == ["node-a", "node-b"]


def page_token(browser, url):
    return CSRF_META.search(browser.get(url, timeout=30).text).group(1)


def test_a_session_made_on_one_node_is_valid_on_the_other(fleet):
    a, b = fleet.servers["node-a"], fleet.servers["node-b"]
    email, _ = fleet.user()
    browser = requests.Session()  # one cookie jar for both nodes, as behind one proxy
    signed_in = browser.post(a.url + "/masuk", data={"csrf_token": page_token(browser, a.url + "/masuk"),
                                                     "email": email, "password": PASSWORD},
                             allow_redirects=False, timeout=30)
    assert signed_in.status_code == 303
    account = browser.get(b.url + "/akun", allow_redirects=False, timeout=30)
    assert account.status_code == 200 and email in account.text
    token_from_a = page_token(browser, a.url + "/akun")
    signed_out = browser.post(b.url + "/keluar", data={"csrf_token": token_from_a}, allow_redirects=False,
                              timeout=30)
    assert signed_out.status_code == 303  # a CSRF token of node-a's page, accepted by node-b
    assert browser.get(a.url + "/akun", allow_redirects=False, timeout=30).status_code == 302  # gone on both


def within(seconds, condition):
    """Seconds until ``condition()`` first held (polled), or None after ``seconds``."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if condition():
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def test_a_block_or_a_lift_made_on_one_node_is_enforced_by_the_other_within_two_seconds(fleet):
    a, b = fleet.servers["node-a"], fleet.servers["node-b"]
    _, admin = fleet.user("admin")
    visitor = an_address()

    def guard(server):
        return requests.get(server.url + "/api/guard/forward-auth", timeout=10,
                            headers={"X-Guardsvc-Secret": PROXY_SECRET, "X-Forwarded-For": visitor}).status_code

    assert guard(a) == guard(b) == 204
    created = requests.post(a.url + "/api/admin/blocks", json={"ip": visitor}, headers=admin, timeout=10)
    assert created.status_code == 201
    assert within(2, lambda: guard(b) == 403) is not None
    reference = created.json()["data"]["reference"]
    lifted = requests.post(f"{b.url}/api/admin/blocks/{reference}/lift", json={}, headers=admin, timeout=10)
    assert lifted.status_code == 200
    assert within(2, lambda: guard(a) == 204) is not None


def test_a_rate_limit_is_exact_over_both_nodes(fleet):
    servers = list(fleet.servers.values())
    number = submit(servers[0], an_address()).json()["ticket_number"]
    checker = an_address()  # five checks a minute (GUARDSVC_RATELIMIT_CHECK), whichever node answers
    statuses = all_at_once(12, lambda i: requests.get(
        f"{servers[i % 2].url}/api/guard/unblock-tickets/check/{number}", timeout=30,
        headers={"Accept": "application/json", "X-Forwarded-For": checker}).status_code)
    assert Counter(statuses) == {200: 5, 429: 7}


class SlowInbox:
    """An SMTP inbox that takes ``delay`` seconds a message, so a deliverer holds its claim a while."""

    def __init__(self, inbox, delay):
        self.inbox, self.delay = inbox, delay

    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(self.delay)
        return await self.inbox.handle_DATA(server, session, envelope)


def outside_world(smtp_delay=0.0):
    """(an SMTP server taking ``smtp_delay`` s a message, a webhook receiver): where deliverers deliver."""
    smtp = SmtpServer()
    inbox = smtp.inbox
    smtp.inbox = SlowInbox(inbox, smtp_delay)
    smtp.start()
    smtp.inbox = inbox
    return smtp, Receiver().start()


@pytest.fixture()
def outside():
    smtp, receiver = outside_world()
    yield smtp, receiver
    receiver.stop()
    smtp.stop()


@pytest.fixture()
def slow_outside():
    smtp, receiver = outside_world(smtp_delay=0.05)
    yield smtp, receiver
    receiver.stop()
    smtp.stop()


def deliverer_settings(settings, smtp, **extra):
    return {**settings, **smtp.env, "GUARDSVC_MAIL_POLL_SECONDS": "1", "GUARDSVC_WEBHOOK_POLL_SECONDS": "0.2",
            "GUARDSVC_WEBHOOK_RETRY_SECONDS": "0.2", **extra}


def subscribe(fleet, receiver):
    """``receiver`` the one endpoint (an earlier test's, whose receiver is gone, goes with its deliveries)."""
    fleet.database.run("DELETE FROM webhook_endpoints")
    with fleet.app.app_context():
        webhooks.add_endpoint(receiver.url, ["ticket.submitted"])
        db.session.commit()
        db.session.remove()
    time.sleep(1)  # the nodes read the subscriptions again (GUARDSVC_WEBHOOK_REFRESH_SECONDS)


def received(smtp, receiver, emails):
    """(e-mails per address of ``emails``, webhook events per event id) received so far."""
    mail = Counter(message["To"] for message in list(smtp.inbox.messages) if message["To"] in emails)
    events = Counter(request.id for request in list(receiver.requests))
    return mail, events


def test_with_a_deliverer_on_each_node_every_email_and_webhook_event_goes_out_once(fleet, outside):
    smtp, receiver = outside
    subscribe(fleet, receiver)
    workers = [fleet.worker(deliverer_settings(fleet.settings[name], smtp)) for name in fleet.settings]
    try:
        servers = list(fleet.servers.values())
        emails = [f"banding{next(_addresses)}@example.com" for _ in range(30)]
        answers = all_at_once(30, lambda i: submit(servers[i % 2], an_address(), email=emails[i]).status_code)
        assert answers == [201] * 30, Counter(answers)
        wait_for(lambda: (lambda mail, events: len(mail) == 30 and len(events) == 30)(
            *received(smtp, receiver, emails)), "every e-mail and event delivered", timeout=60)
        time.sleep(1)  # a second delivery, if any, has time to arrive
        mail, events = received(smtp, receiver, emails)
        assert set(mail) == set(emails) and set(mail.values()) == {1}
        assert len(events) == 30 and set(events.values()) == {1}
    finally:
        stopped = [worker.stop() for worker in workers]
    assert [code for code, _ in stopped] == [0, 0], stopped


def test_a_node_whose_shared_setting_differs_is_named(fleet):
    settings = fleet.node("odd-node", GUARDSVC_FORWARD_AUTH_SECRET="another-proxy-secret-of-forty-characters")
    odd = fleet.worker(settings)  # a node with a worker only reports too
    try:
        try:
            wait_for(lambda: fleet.database.rows("SELECT 1 FROM nodes WHERE name = 'odd-node'"), "odd-node reported")
        except AssertionError as missing:
            raise AssertionError(f"{missing}; its worker said:\n{odd.output()[-3000:]}") from None
        listed = fleet.nodes_command()
        lines = listed.output.splitlines()
        assert listed.exit_code == 1
        assert sorted(line.split("\t")[0] for line in lines if "\t" in line) == ["node-a", "node-b", "odd-node"]
        assert [line for line in lines if "\t" not in line] == ["GUARDSVC_FORWARD_AUTH_SECRET differs on odd-node"]
        _, admin = fleet.user("admin")
        fleet_view = requests.get(fleet.servers["node-b"].url + "/api/admin/nodes", headers=admin, timeout=10)
        assert [(d["node"], d["setting"]) for d in fleet_view.json()["data"]["disagreements"]] == [
            ("odd-node", "GUARDSVC_FORWARD_AUTH_SECRET")]
    finally:
        odd.stop()
        fleet.database.run("DELETE FROM nodes WHERE name = 'odd-node'")


def test_a_node_killed_mid_flood_loses_nothing_it_answered_and_the_other_delivers_its_claims(fleet, slow_outside):
    smtp, receiver = slow_outside
    lease = 3  # node-k alone claims until it dies: a lease shorter than its batch cannot make it send twice
    doomed = fleet.node("node-k", GUARDSVC_DELIVERY_LEASE_SECONDS=str(lease))
    servers = {"node-k": start_nodes({"node-k": doomed})["node-k"], "node-b": fleet.servers["node-b"]}
    subscribe(fleet, receiver)
    k_worker = fleet.worker(deliverer_settings(doomed, smtp))
    b_worker = None
    answered, emails = {}, {}
    lock = threading.Lock()

    def one(i):
        email = f"banjir{next(_addresses)}@example.com"
        try:
            answer = submit(servers["node-k" if i % 2 == 0 else "node-b"], an_address(), email=email)
        except requests.RequestException:
            return
        if answer.status_code == 201:
            with lock:
                answered[answer.json()["ticket_number"]] = email
                emails[email] = True

    try:
        with ThreadPoolExecutor(max_workers=6) as pool:
            flood = [pool.submit(one, i) for i in range(40)]
            wait_for(lambda: len(answered) >= 12 and fleet.database.value(
                "SELECT count(*) FROM mail_outbox WHERE status = 'sending'"), "node-k's worker holding a claim")
            servers["node-k"].stop()  # SIGKILL to gunicorn and its workers
            k_worker.kill()
            for future in flood:
                future.result()
        claimed = fleet.database.rows("SELECT id, claimed_until FROM mail_outbox WHERE status = 'sending'")
        assert claimed  # node-k died holding them
        b_worker = fleet.worker(deliverer_settings(fleet.settings["node-b"], smtp))
        stored = {number for number, in fleet.database.rows(
            "SELECT ticket_number FROM unblock_tickets WHERE ticket_number = ANY(:numbers)",
            numbers=list(answered))}
        assert stored == set(answered)  # nothing answered 201 was lost
        wait_for(lambda: not fleet.database.value(
            "SELECT count(*) FROM mail_outbox WHERE status IN ('pending', 'sending')"),
            "every e-mail delivered", timeout=lease + 60)
        wait_for(lambda: not fleet.database.value(
            "SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'sending')"),
            "every webhook delivered", timeout=60)
        mail, _ = received(smtp, receiver, emails)
        assert set(mail) == set(emails)  # each answered ticket's confirmation arrived
        assert sum(mail.values()) - len(mail) <= 1  # at most the one in hand when node-k died, twice
        events = Counter(json.loads(request.body)["data"]["ticket_number"] for request in receiver.requests)
        assert set(answered) <= set(events) and sum(events.values()) - len(events) <= 1
        for message_id, claimed_until in claimed:  # node-b sent node-k's claims once their lease was over
            sent_at = fleet.database.value("SELECT sent_at FROM mail_outbox WHERE id = :id", id=message_id)
            assert sent_at is not None and sent_at >= claimed_until
    finally:
        servers["node-k"].stop()
        k_worker.kill()
        if b_worker is not None:
            b_worker.stop()
