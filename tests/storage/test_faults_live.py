"""Faults under traffic, against a real gunicorn: the database stops or freezes, a worker is killed.

One gunicorn (2 workers x 4 threads) for the module, with short database
timeouts. On PostgreSQL it reaches the database through a proxy that the
tests cut and freeze; a SQLite run has no server to stop and runs the worker
test alone. A second gunicorn, with the shipped settings, serves from a
PostgreSQL of the test's own, which the test stops with SIGSTOP as an
operator's server freezes.
"""
import json
import os
import shutil
import signal
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
import requests

from flask_migrate import upgrade

from guardsvc import create_app
from guardsvc.accounts import service as accounts
from guardsvc.extensions import db
from tests.conftest import TEST_DATABASE_URL
from tests.support.factories import submit_body
from tests.support.faults_support import DatabaseProxy, PostgresServer, postgres_target
from tests.support.live import LiveServer, wait_for

pytestmark = [pytest.mark.faults, pytest.mark.live]
ON_POSTGRES = TEST_DATABASE_URL.startswith("postgres")
needs_postgres = pytest.mark.skipif(not ON_POSTGRES, reason="needs a PostgreSQL test database to cut")
SUBMIT = "/api/guard/unblock-tickets/submit"
# The empty appeal form reads nothing for an anonymous visitor (and is never guarded):
# it may still answer while the database is away.
NO_DATABASE = {"/banding"}
# The database stays frozen this long after the last request was answered.
FROZEN_AFTER_ANSWERS = 5


@pytest.fixture(scope="module")
def proxy():
    proxy = DatabaseProxy(postgres_target(TEST_DATABASE_URL)) if ON_POSTGRES else None
    yield proxy
    if proxy:
        proxy.close()


@pytest.fixture(scope="module")
def server(app, proxy):
    env = {
        "GUARDSVC_DATABASE_CONNECT_TIMEOUT_SECONDS": "1",
        "GUARDSVC_DATABASE_STATEMENT_TIMEOUT_SECONDS": "1",
        "GUARDSVC_DATABASE_POOL_TIMEOUT_SECONDS": "2",
        "GUARDSVC_PENDING_PER_IP": "100000",
        "GUARDSVC_LOG_LEVEL": "CRITICAL",
    }
    if proxy:
        env["GUARDSVC_DATABASE_URL"] = proxy.url_for(TEST_DATABASE_URL)
    server = LiveServer(workers=2, env=env)
    yield server
    server.stop()


class Traffic:
    """Threads that send a mix of pages, API reads and appeal submissions until told to stop.

    Every answer is kept as (started, ended, path, status, body); a request
    that got no answer at all has status 0.
    """

    def __init__(self, server, admin_headers, threads=4):
        self.server = server
        self.admin_headers = admin_headers
        self.results = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,)) for i in range(threads)]

    def __enter__(self):
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for thread in self._threads:
            thread.join(60)
        self.unfinished = sum(thread.is_alive() for thread in self._threads)

    def _run(self, number):
        calls = [self._page("/"), self._page("/banding"), self._page("/readyz"), self._submit,
                 self._admin_list]
        session = requests.Session()
        i = 0
        while not self._stop.is_set():
            call = calls[(number + i) % len(calls)]
            i += 1
            started = time.monotonic()
            try:
                path, response = call(session)
                status, body = response.status_code, response.text
            except requests.RequestException:
                path, status, body = "?", 0, ""
            with self._lock:
                self.results.append((started, time.monotonic(), path, status, body))

    def _page(self, path):
        return lambda session: (path, session.get(self.server.url + path, timeout=30))

    def _submit(self, session):
        response = session.post(self.server.url + SUBMIT, json=submit_body(),
                                headers={"Accept": "application/json", "X-Device-Id": uuid.uuid4().hex},
                                timeout=30)
        return SUBMIT, response

    def _admin_list(self, session):
        return "/api/admin/tickets", session.get(self.server.url + "/api/admin/tickets",
                                                 headers=self.admin_headers, timeout=30)

    def between(self, start, end):
        """Answers to requests sent and answered inside [start, end]."""
        return [r for r in self.results if r[0] >= start and r[1] <= end]


def statuses(results):
    return Counter(status for _, _, _, status, _ in results)


@needs_postgres
def test_database_stopped_under_traffic_is_503_during_and_2xx_after(server, proxy, bearer):
    _, admin = bearer(role="admin")
    with Traffic(server, admin) as traffic:
        time.sleep(1)
        cut_at = time.monotonic()
        proxy.cut()
        time.sleep(3)
        proxy.restore()
        back_at = time.monotonic()
        time.sleep(3)
    everything = statuses(traffic.results)
    during = statuses(r for r in traffic.between(cut_at, back_at) if r[2] not in NO_DATABASE)
    print("answered without the database:", Counter(r[2:4] for r in traffic.between(cut_at, back_at)
                                                     if r[2] in NO_DATABASE))
    after = statuses(traffic.between(back_at + 1, time.monotonic()))
    print("database stopped for 3 s:", dict(everything), "during:", dict(during), "after:", dict(after))
    assert everything[500] == 0 and everything[0] == 0
    assert during and set(during) == {503}
    assert after and set(after) <= {200, 201}


@needs_postgres
def test_frozen_database_ends_requests_with_503_long_before_it_thaws(server, proxy, bearer):
    _, admin = bearer(role="admin")
    health = []

    def probe_health():
        while not thawed.is_set():
            health.append(requests.get(server.url + "/healthz", timeout=30).status_code)
            time.sleep(0.2)

    thawed = threading.Event()
    prober = threading.Thread(target=probe_health)
    with Traffic(server, admin) as traffic:
        time.sleep(0.5)
        frozen_at = time.monotonic()
        proxy.freeze()
        prober.start()
        time.sleep(3)
    # The traffic has stopped sending and every request it sent has its answer, while still
    # frozen: a request that waited for the database would have ended unanswered (status 0)
    # at the client's 30 s timeout, or still be running.
    answered_at = time.monotonic()
    time.sleep(FROZEN_AFTER_ANSWERS)
    proxy.restore()
    thawed.set()
    prober.join(30)
    during = [r for r in traffic.results if r[0] >= frozen_at]
    slowest = max(end - start for start, end, *_ in during)
    print(f"database frozen for {answered_at + FROZEN_AFTER_ANSWERS - frozen_at:.0f} s: {dict(statuses(during))}, "
          f"slowest answer {slowest:.1f} s, /healthz {dict(Counter(health))}")
    assert during and traffic.unfinished == 0
    assert set(statuses(r for r in during if r[2] not in NO_DATABASE)) == {503}
    assert health and set(health) == {200}
    assert ready_again(server), "not ready again within 5 s of the thaw"


def ready_again(server, within=5.0):
    """/readyz answers 200 within ``within`` s (the breaker lets a trial through after a second)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if requests.get(server.url + "/readyz", timeout=30).status_code == 200:
            return True
        time.sleep(0.2)
    return False


FREEZE_SECONDS = 20  # how long operators' databases were seen frozen (a failover, a stalled disk)
READY_WITHIN = 1.0  # what a readiness probe waits for an answer (Kubernetes: 1 s by default)


@pytest.fixture(scope="module")
def own_postgres():
    """A PostgreSQL of the test's own, to freeze with SIGSTOP, migrated, with an administrator's token."""
    if shutil.which("pg_config") is None:
        pytest.skip("PostgreSQL's server programs are not installed")
    postgres = PostgresServer()
    url = postgres.url.replace("postgresql://", "postgresql+psycopg://")
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        admin = accounts.create_user("admin-beku@example.com", "Admin", "kata-sandi-rahasia-123", "admin")
        token, _ = accounts.create_token(admin, "uji", client=None)
        db.session.commit()
        db.session.remove()
        db.engine.dispose()
    yield postgres, {"Authorization": f"Bearer {token}"}
    postgres.stop()


@pytest.fixture(scope="module")
def shipped_server(app, own_postgres, tmp_path_factory):
    """guardsvc with the shipped timeouts and deadline (5 s) on that PostgreSQL; its access log as JSON lines."""
    postgres, _ = own_postgres
    access_log = tmp_path_factory.mktemp("shipped") / "access.log"
    with open(access_log, "wb") as lines:
        server = LiveServer(workers=2, stdout=lines, env={
            "GUARDSVC_DATABASE_URL": postgres.url, "GUARDSVC_PENDING_PER_IP": "100000",
            "GUARDSVC_LOG_LEVEL": "CRITICAL", "GUARDSVC_LOG_FORMAT": "json"})
    server.access_log = access_log
    yield server
    server.stop()


def served_in(server, path):
    """How long the server spent on each request for ``path`` (its access log: from the request's
    first line read to the end of its teardown, without the wait for a free thread)."""
    lines = (json.loads(line) for line in server.access_log.read_text().splitlines() if line.startswith("{"))
    return [line["duration_ms"] / 1000 for line in lines if line.get("path") == path]


class Prober:
    """One thread asking ``path`` every 0.1 s until stopped; keeps (started, seconds, status, body)."""

    def __init__(self, url):
        self.url, self.answers = url, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def _run(self):
        while not self._stop.is_set():
            started = time.monotonic()
            response = requests.get(self.url, timeout=30)
            self.answers.append((started, time.monotonic() - started, response.status_code, response.text))
            self._stop.wait(0.1)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(30)

    def slowest(self, since=0.0, until=float("inf")):
        return max(seconds for started, seconds, *_ in self.answers if since <= started <= until)


@needs_postgres
def test_a_frozen_database_costs_no_request_more_than_its_deadline(shipped_server, own_postgres):
    """PostgreSQL stopped with SIGSTOP for 20 s under traffic, shipped settings: every request ends
    within its 5 s deadline, /healthz and /readyz answer at once all along, and it is ready again
    within 2 s of the thaw."""
    server, (postgres, admin) = shipped_server, own_postgres
    # More clients than the server has threads (2 workers x 4), so that every thread can be stuck.
    with Traffic(server, admin, threads=12) as traffic, Prober(server.url + "/healthz") as health, \
            Prober(server.url + "/readyz") as ready:
        time.sleep(1)
        frozen_at = time.monotonic()
        postgres.freeze()
        time.sleep(FREEZE_SECONDS)
        postgres.thaw()
        thawed_at = time.monotonic()
        ready_again_at = wait_for(lambda: next((started + seconds for started, seconds, status, _ in ready.answers
                                                if started >= thawed_at and status == 200), None),
                                  "/readyz answers 200 after the thaw", timeout=10)
        time.sleep(2)
    spanned = [r for r in traffic.results if r[1] >= frozen_at and r[0] <= thawed_at]
    slowest = max(end - start for start, end, *_ in spanned)
    readiness = [(seconds, status, body) for started, seconds, status, body in ready.answers
                 if frozen_at <= started <= thawed_at]
    readiness += [(end - start, status, body) for start, end, path, status, body in spanned
                  if path == "/readyz" and start >= frozen_at]
    slowest_ready = max(seconds for seconds, *_ in readiness)
    ready_served = served_in(server, "/readyz")
    print(f"frozen {FREEZE_SECONDS} s: {dict(statuses(spanned))}, slowest {slowest:.2f} s; /healthz slowest "
          f"{health.slowest(frozen_at, thawed_at):.2f} s of {len(health.answers)}; /readyz slowest "
          f"{slowest_ready:.2f} s of {len(readiness)} ({dict(Counter(status for _, status, _ in readiness))}), "
          f"served in at most {max(ready_served):.2f} s; ready {ready_again_at - thawed_at:.2f} s after the thaw")
    assert spanned and traffic.unfinished == 0 and statuses(spanned)[500] == 0
    # Each request's own time is cut to the 5 s deadline, and the watchdog ends the waits of
    # requests caught mid-statement within about a second, so the threads come free for /healthz.
    # The bounds below leave room for a machine busy with other test lanes: a request may queue
    # for a thread, and the 503 takes time to render and send.
    assert slowest <= 5 + 2
    assert {status for _, _, status, _ in health.answers} == {200} and health.slowest() <= 5
    # The readiness probe is answered within its own bound, by the breaker or after one short try:
    # every one the server served, from its first line to its teardown. What a client saw adds
    # the wait for a thread and for the CPU, as /healthz's does, on a machine busy with other lanes
    # (measured alone: 0.59 s at most).
    assert readiness and ready_served and max(ready_served) < READY_WITHIN
    assert slowest_ready <= 5
    assert all(status == 200 or (status == 503 and "database_unavailable" in body)
               for _, status, body in readiness)
    assert ready_again_at - thawed_at <= 2
    after = statuses(traffic.between(ready_again_at + 1, time.monotonic()))
    assert after and set(after) <= {200, 201}


def worker_pids(server):
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text()
    return [int(pid) for pid in children.split()]


def test_killed_worker_loses_no_acknowledged_ticket(server, app, bearer):
    from guardsvc.appeals.models import UnblockTicket
    from guardsvc.extensions import db

    _, admin = bearer(role="admin")
    with Traffic(server, admin) as traffic:
        time.sleep(1)
        os.kill(worker_pids(server)[0], signal.SIGKILL)
        time.sleep(2)
    acknowledged = {r[4].split('"ticket_number":"')[1].split('"')[0]
                    for r in traffic.results if r[2] == SUBMIT and r[3] == 201}
    with app.app_context():
        stored = set(db.session.scalars(db.select(UnblockTicket.ticket_number)))
        db.session.remove()
    missing = acknowledged - stored
    print(f"worker killed under load: {dict(statuses(traffic.results))}, "
          f"{len(acknowledged)} tickets acknowledged, {len(missing)} missing")
    assert acknowledged and not missing
    assert statuses(traffic.results)[500] == 0
