"""guardsvc behind PgBouncer in transaction mode (Debian's pgbouncer, run unprivileged on loopback).

A pooler in transaction mode hands each transaction whichever server
connection is free: startup options are refused, session settings and
prepared statements land on a connection the next transaction may not get.
With GUARDSVC_DATABASE_TRANSACTION_POOLING the statement timeout is set in
every transaction and nothing is prepared.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from guardsvc import create_app
from guardsvc.extensions import db
from tests.conftest import TEST_DATABASE_URL
from tests.support.debian_packages import unpacked_program
from tests.support.factories import submit_body
from tests.support.live import LiveServer, free_port, wait_for_port

pytestmark = [pytest.mark.live, pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgres"),
                                                   reason="PgBouncer pools a PostgreSQL server")]


@pytest.fixture(scope="module")
def pgbouncer(app):
    """A PgBouncer in transaction mode in front of the test database; its URL."""
    # A folder of its own under /tmp, with its program and library: run as "nobody", PgBouncer
    # can reach neither root's package cache nor pytest's private temporary folder.
    folder = Path(tempfile.mkdtemp(prefix="guardsvc-pgbouncer-"))
    os.chmod(folder, 0o755)
    shutil.copy(unpacked_program("pgbouncer", "usr/sbin/pgbouncer"), folder / "pgbouncer")
    shutil.copy(unpacked_program("libc-ares2", "usr/lib/x86_64-linux-gnu/libcares.so.2"), folder / "libcares.so.2")
    program = folder / "pgbouncer"
    target = make_url(TEST_DATABASE_URL)
    port = free_port()
    (folder / "users.txt").write_text(f'"{target.username}" ""\n')
    (folder / "pgbouncer.ini").write_text(textwrap.dedent(f"""\
        [databases]
        {target.database} = host={target.host} port={target.port or 5432} dbname={target.database}
        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = {port}
        unix_socket_dir =
        auth_type = trust
        auth_file = {folder}/users.txt
        pool_mode = transaction
        default_pool_size = 4
        max_client_conn = 100
        logfile = {folder}/pgbouncer.log
        pidfile = {folder}/pgbouncer.pid
        """))
    command = [str(program), str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:  # PgBouncer refuses to run as root
        shutil.chown(folder, "nobody")
        for name in os.listdir(folder):
            shutil.chown(folder / name, "nobody")
        command = ["runuser", "-u", "nobody", "--", *command]
    env = {**os.environ, "LD_LIBRARY_PATH": str(folder)}
    process = subprocess.Popen(command, env=env)
    try:
        wait_for_port(port, process, "pgbouncer")
        yield target.set(drivername="postgresql+psycopg", host="127.0.0.1", port=port).render_as_string(
            hide_password=False)
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def pooled_app(url, **settings):
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, **settings})


def test_startup_options_are_what_a_transaction_pooler_refuses_and_the_error_names_the_setting(pgbouncer):
    flask_app = pooled_app(pgbouncer, DATABASE_TRANSACTION_POOLING=False)
    with flask_app.app_context(), pytest.raises(Exception, match="GUARDSVC_DATABASE_TRANSACTION_POOLING=true"):
        db.session.execute(text("SELECT 1"))


def test_an_operator_running_a_command_through_the_pooler_reads_the_fix(pgbouncer, tmp_path):
    """``flask db current`` as its own process: the error on the screen names the setting."""
    env = {**os.environ, "GUARDSVC_DATABASE_URL": pgbouncer}
    env.pop("GUARDSVC_DATABASE_TRANSACTION_POOLING", None)
    flask = Path(sys.executable).with_name("flask")
    refused = subprocess.run([str(flask), "--app", "guardsvc", "db", "current"], capture_output=True, text=True,
                             env=env, cwd=tmp_path, timeout=120)
    assert refused.returncode != 0
    assert "GUARDSVC_DATABASE_TRANSACTION_POOLING=true" in refused.stderr


def test_every_transaction_carries_the_statement_timeout_and_nothing_is_prepared(pgbouncer):
    flask_app = pooled_app(pgbouncer, DATABASE_TRANSACTION_POOLING=True, DATABASE_STATEMENT_TIMEOUT_SECONDS=1)
    with flask_app.app_context():
        for _ in range(12):  # psycopg would prepare a statement run 5 times; the pooler would lose it
            assert db.session.execute(text("SHOW statement_timeout")).scalar() == "1s"
            db.session.commit()
        with pytest.raises(Exception, match="statement timeout"):
            db.session.execute(text("SELECT pg_sleep(3)"))
        db.session.rollback()


def test_the_service_works_through_the_pooler(pgbouncer):
    server = LiveServer(workers=2, env={"GUARDSVC_DATABASE_URL": pgbouncer,
                                        "GUARDSVC_DATABASE_TRANSACTION_POOLING": "true",
                                        "GUARDSVC_PENDING_PER_IP": "1000"})
    try:
        import requests

        numbers = []
        for index in range(10):
            answer = requests.post(server.url + "/api/guard/unblock-tickets/submit", json=submit_body(),
                                   headers={"X-Device-Id": f"pgbouncer-{index}"}, timeout=30)
            assert answer.status_code == 201, answer.text
            numbers.append(answer.json()["data"]["ticket_number"])
        for number in numbers:
            checked = requests.get(f"{server.url}/api/guard/unblock-tickets/check/{number}", timeout=30)
            assert checked.status_code == 200 and checked.json()["data"]["status"] == "pending"
        assert requests.get(server.url + "/readyz", timeout=30).status_code == 200
    finally:
        server.stop()
