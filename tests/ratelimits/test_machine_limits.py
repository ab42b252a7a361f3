"""The embedded default uses every core: one worker per core, limits exact over all of them, and
SQLite writers that queue in their process instead of sleeping in SQLite's busy handler."""
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from guardsvc.config import machine_cores
from guardsvc.ratelimits import lmdb_store
from guardsvc.storage.sqlite_writers import WriteQueue
from tests.conftest import TEST_DATABASE_URL
from tests.support.factories import submit_body
from tests.support.live import ROOT, LiveServer, all_at_once, free_port, wait_for

SUBMIT = "/api/guard/unblock-tickets/submit"
on_sqlite = pytest.mark.skipif(not TEST_DATABASE_URL.startswith("sqlite"), reason="SQLite's write lock")


def _worker_pids(server):
    found = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True, text=True)
    return set(found.stdout.split())


@pytest.mark.live
def test_the_default_shape_counts_a_limit_once_over_every_worker_process(app, tmp_path):
    """``gunicorn wsgi:app`` with no worker count and no limit store: a worker per core, one count."""
    instance = tmp_path / "instance"
    server = LiveServer(workers=None, threads=None, unset=("GUARDSVC_RATELIMIT_STORAGE_URI",), env={
        "GUARDSVC_INSTANCE_PATH": str(instance), "GUARDSVC_RATELIMIT_ENABLED": "true",
        "GUARDSVC_RATELIMIT_CHECK": "7 per minute"})
    try:
        # gunicorn forks its workers a moment apart: the first may answer before the last exists.
        workers = wait_for(lambda: len(_worker_pids(server)) >= machine_cores() and _worker_pids(server),
                           "a worker per core")
        assert len(workers) == machine_cores() >= 2, workers  # this machine has several cores
        metrics = Path(server.metrics_dir)

        def answered_by():  # a worker writes metric files named after its pid once it counted a request
            return {path.stem.rpartition("_")[2] for path in metrics.glob("counter_*.db")} & workers

        check = server.url + "/api/guard/unblock-tickets/check/TKT-0000000{}"
        statuses = []
        for _ in range(10):  # which worker takes a connection is the kernel's choice
            statuses += all_at_once(16, lambda n: requests.get(check.format(n % 10), timeout=60).status_code)
            if len(answered_by()) == len(workers):
                break
        assert answered_by() == workers  # every process answered some of them
        assert statuses.count(404) == 7, statuses  # and all together let seven through, not seven each
        assert set(statuses) == {404, 429}
        assert (instance / "ratelimits.lmdb").is_file()  # the store lives in the instance folder
    finally:
        server.stop()


@pytest.mark.live
def test_a_damaged_limit_store_stops_the_start_naming_the_file_and_the_fix(tmp_path):
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "ratelimits.lmdb").write_bytes(b"bukan lmdb " * 1000)
    env = {name: value for name, value in os.environ.items() if name != "GUARDSVC_RATELIMIT_STORAGE_URI"}
    env.update(GUARDSVC_INSTANCE_PATH=str(instance), GUARDSVC_RATELIMIT_ENABLED="true",
               GUARDSVC_BIND=f"127.0.0.1:{free_port()}", PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"))
    started = subprocess.run([str(Path(sys.executable).with_name("gunicorn")), "wsgi:app"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
    assert started.returncode != 0
    assert f"{instance / 'ratelimits.lmdb'}" in started.stderr and "delete" in started.stderr, started.stderr
    assert "Traceback" not in started.stderr


def test_an_unwritable_limit_store_is_named_with_the_fix():
    with pytest.raises(lmdb_store.StoreProblem) as caught:
        lmdb_store.check_store("guardsvc-lmdb:///sys/guardsvc-ratelimits.lmdb")  # even root cannot write there
    assert "/sys/guardsvc-ratelimits.lmdb" in str(caught.value) and "writable" in str(caught.value)


def test_a_full_limit_store_forgets_the_windows_that_end_soonest(tmp_path):
    store = lmdb_store.LmdbStorage(f"guardsvc-lmdb://{tmp_path}/r.lmdb?max_keys=50")
    try:
        for n in range(60):
            store.count_many([(f"klien-{n}", 600 + n)])
        assert store.get("klien-0") == 0 and store.get("klien-59") == 1  # the soonest-ending went first
        counted = store.count_many([("klien-59", 659), ("baru", 5)])
        assert [count for count, _ in counted] == [2, 1]
    finally:
        store.close()


def test_counts_of_several_processes_add_up_in_the_file(tmp_path):
    uri = f"guardsvc-lmdb://{tmp_path}/r.lmdb"
    code = ("import sys; from guardsvc.ratelimits.lmdb_store import LmdbStorage; s = LmdbStorage(sys.argv[1])\n"
            "for _ in range(500): s.count_many([('bersama', 60), ('harian', 86400)])")
    processes = [subprocess.Popen([sys.executable, "-c", code, uri], cwd=ROOT) for _ in range(4)]
    assert [process.wait(120) for process in processes] == [0] * 4
    store = lmdb_store.LmdbStorage(uri)
    try:
        assert store.get("bersama") == store.get("harian") == 2000
    finally:
        store.close()


def test_the_write_queue_is_first_come_first_served_and_bounded():
    queue = WriteQueue()
    assert queue.acquire(0)
    assert not queue.acquire(0.05)  # held: the wait ends with its bound
    order = []

    def writer(n):
        assert queue.acquire(10)
        order.append(n)
        queue.release()

    threads = []
    for n in range(5):
        threads.append(threading.Thread(target=writer, args=(n,)))
        threads[-1].start()
        while queue.waiting() < n + 1:
            time.sleep(0.001)
    queue.release()
    for thread in threads:
        thread.join(10)
    assert order == [0, 1, 2, 3, 4]
    assert queue.acquire(0)


@pytest.mark.live
@on_sqlite
def test_writers_of_one_process_all_commit_without_sqlites_busy_handler(app):
    """One worker, eight threads, 32 submissions at once, and no busy timeout at all: each waits its turn."""
    from tests.storage.test_live_concurrency import post

    server = LiveServer(workers=1, threads=8, env={"GUARDSVC_SQLITE_BUSY_TIMEOUT_SECONDS": "0"})
    try:
        results = all_at_once(32, lambda i: post(server, SUBMIT, submit_body(name=f"Antre {i}"),
                                                 headers={"X-Device-Id": f"antre-{i}"},
                                                 source_ip=f"127.0.3.{i + 1}"))
    finally:
        server.stop()
    assert [status for status, _ in results] == [201] * 32, results
    with sqlite3.connect(TEST_DATABASE_URL.removeprefix("sqlite:///")) as database:
        names = {row[0] for row in database.execute("SELECT name FROM unblock_tickets WHERE name LIKE 'Antre %'")}
    assert names == {f"Antre {i}" for i in range(32)}


@pytest.mark.live
@on_sqlite
def test_a_write_that_cannot_get_the_lock_by_the_deadline_answers_503_and_writes_nothing(app):
    from tests.storage.test_live_concurrency import post

    server = LiveServer(workers=1, threads=4, env={"GUARDSVC_REQUEST_DEADLINE_SECONDS": "1"})
    holder = sqlite3.connect(TEST_DATABASE_URL.removeprefix("sqlite:///"), isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process holds SQLite's write lock throughout
        started = time.monotonic()
        status, body = post(server, SUBMIT, submit_body(name="Terlambat"), headers={"X-Device-Id": "terlambat"})
        waited = time.monotonic() - started
        holder.execute("ROLLBACK")
        assert status == 503 and body["success"] is False and "basis data" in body["message"], body
        assert waited < 3, waited  # within the deadline (1 s) and its last statements, not the busy timeout
        assert holder.execute("SELECT count(*) FROM unblock_tickets WHERE name = 'Terlambat'").fetchone()[0] == 0
        assert holder.execute("SELECT count(*) FROM mail_outbox").fetchone()[0] == 0
        # The lock is free again: the same submission goes through.
        assert post(server, SUBMIT, submit_body(name="Terlambat"), headers={"X-Device-Id": "terlambat"})[0] == 201
    finally:
        holder.close()
        server.stop()


@on_sqlite
def test_a_write_waiting_behind_this_processs_writers_gets_503_by_the_deadline(app):
    """The turn of a writer of the same process is awaited until the deadline, then 503, nothing written."""
    from guardsvc import create_app
    from guardsvc.storage.sqlite_writers import queue_for

    client = create_app({"TESTING": True, "REQUEST_DEADLINE_SECONDS": 0.5}).test_client()
    turn = queue_for(TEST_DATABASE_URL.removeprefix("sqlite:///"))
    assert turn.acquire(1)  # a writer of this process, mid-transaction
    try:
        started = time.monotonic()
        answer = client.post(SUBMIT, json=submit_body(name="Menunggu"), headers={"X-Device-Id": "menunggu"})
        assert answer.status_code == 503 and time.monotonic() - started < 2
    finally:
        turn.release()
    with sqlite3.connect(TEST_DATABASE_URL.removeprefix("sqlite:///")) as database:
        assert database.execute("SELECT count(*) FROM unblock_tickets WHERE name = 'Menunggu'").fetchone()[0] == 0
    assert client.post(SUBMIT, json=submit_body(name="Menunggu"), headers={"X-Device-Id": "menunggu"}).status_code == 201
