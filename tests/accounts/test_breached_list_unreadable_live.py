"""The breached-password filter never fails open in silence (contract section 16, fifth edition).

A filter the service cannot read (damaged, or written 0600 by another user than
the server's) used to make every breached password acceptable, with one log
line, while ``passwords breached-status`` said the list was loaded. Replayed as
it happens: gunicorn and the commands as processes of their own, the server
without root's power to read any file (``setpriv`` drops CAP_DAC_OVERRIDE), so
a file of another user with mode 0600 is as unreadable to it as to a service
account.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select

from guardsvc.accounts.models import User
from guardsvc.extensions import db
from tests.support.cli_processes import CommandProcess
from tests.support.live import ROOT, LiveServer, free_port, wait_for

# Files of another user need root to be made (chown), and setpriv to be unreadable to the server.
pytestmark = [pytest.mark.live, pytest.mark.database_agnostic, pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                                   reason="needs root and setpriv (util-linux)")]

LEAKED = "kuda-laut-biru-2026"
NEWLY_LEAKED = "ikan-pari-hijau-2027"
FINE = "burung-hantu-ungu-77"
STRANGER = 12345  # a uid that is not the server's
NOT_ROOT = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
METRICS_TOKEN = "token-metrik-uji-0123456789"
FIX = "passwords load-breached"


def sha1(text):
    return hashlib.sha1(text.encode("utf-8")).hexdigest().upper()


@pytest.fixture()
def instance(tmp_path):
    folder = tmp_path / "instance"
    folder.mkdir()
    return folder


def flask_command(instance, *argv):
    """``flask --app guardsvc ...`` in a process of its own, on the test database: (status, stdout, stderr)."""
    folder = instance.parent / f"command-{time.monotonic_ns()}"
    folder.mkdir()
    return CommandProcess(argv, {"GUARDSVC_INSTANCE_PATH": str(instance), "GUARDSVC_BREACHED_PASSWORDS_FILE": ""},
                          folder).wait()


def load(instance, tmp_path, *passwords):
    source = tmp_path / f"pwned-{time.monotonic_ns()}.txt"
    source.write_text("".join(f"{sha1(password)}:{n + 7}\r\n" for n, password in enumerate(passwords)))
    code, out, err = flask_command(instance, "passwords", "load-breached", str(source))
    assert code == 0, (out, err)
    return instance / "breached-passwords.bloom"


def spoil(path, how):
    if how == "damaged":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])  # cut short
    else:  # written 0600 by another user, as a load run by hand as someone else would leave it
        os.chown(path, STRANGER, STRANGER)
        os.chmod(path, 0o600)


def users(app, email):
    with app.app_context():
        found = db.session.scalar(select(func.count()).select_from(User).where(User.email == email))
        db.session.remove()
        return found


def start_server(instance, tmp_path, **env):
    log = open(tmp_path / f"server-{time.monotonic_ns()}.log", "w+")
    server = LiveServer(workers=2, threads=2, prefix=NOT_ROOT, stderr=log, env={
        "GUARDSVC_INSTANCE_PATH": str(instance), "GUARDSVC_BREACHED_PASSWORDS_FILE": "",
        "GUARDSVC_METRICS_TOKEN": METRICS_TOKEN, **env})
    server.log = log
    return server


def log_of(server):
    server.log.flush()
    server.log.seek(0)
    return server.log.read()


def until_both_workers_report(app, state, breached_at_sign_in):
    """Sign in until both workers have reported ``state``: the kernel, not the test, picks the worker of a request."""
    from guardsvc.accounts.models import BreachedListReader

    def reported():
        assert breached_at_sign_in() is True  # the password is on every list the workers answer from
        with app.app_context():
            states = sorted(db.session.scalars(select(BreachedListReader.state)))
            db.session.remove()
        return states == [state, state]

    wait_for(reported, f"both workers report {state}")


@pytest.mark.parametrize("how", ["damaged", "another user's, 0600"])
def test_a_server_does_not_start_on_a_list_it_cannot_read(app, instance, tmp_path, how):
    spoil(load(instance, tmp_path, LEAKED), how)
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    done = subprocess.run([*NOT_ROOT, gunicorn, "--log-level", "warning", "wsgi:app"], cwd=ROOT, timeout=120,
                          capture_output=True, text=True, env={
                              **os.environ, "GUARDSVC_BIND": f"127.0.0.1:{free_port()}", "GUARDSVC_WORKERS": "1",
                              "GUARDSVC_INSTANCE_PATH": str(instance), "GUARDSVC_BREACHED_PASSWORDS_FILE": "",
                              "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")})
    assert done.returncode != 0
    assert str(instance / "breached-passwords.bloom") in done.stderr and FIX in done.stderr, done.stderr


@pytest.mark.parametrize("how", ["damaged", "another user's, 0600"])
def test_commands_that_set_a_password_refuse_a_list_they_cannot_read(app, instance, tmp_path, make_user, how):
    spoil(load(instance, tmp_path, LEAKED), how)
    user = make_user(email="ada@example.com")
    argvs = [["users", "create", "baru@example.com", "--name", "Baru", "--password", LEAKED],
             ["users", "set-password", user.email, "--password", LEAKED]]
    for argv in argvs:
        if how == "damaged":
            code, out, err = flask_command(instance, *argv)
        else:  # a command run without root's power to read another user's file
            done = subprocess.run([*NOT_ROOT, str(Path(sys.executable).with_name("flask")), "--app", "guardsvc", *argv],
                                  cwd=ROOT, timeout=120, capture_output=True, text=True,
                                  env={**os.environ, "GUARDSVC_INSTANCE_PATH": str(instance),
                                       "GUARDSVC_BREACHED_PASSWORDS_FILE": ""})
            code, out, err = done.returncode, done.stdout, done.stderr
        assert code == 1 and "no password was set" in err and FIX in err, (argv, out, err)
        assert str(instance / "breached-passwords.bloom") in err and "Traceback" not in err
    assert users(app, "baru@example.com") == 0
    with app.app_context():
        assert db.session.get(User, user.id).password_hash == user.password_hash


def test_a_serving_process_keeps_its_last_good_list_and_says_so(app, instance, tmp_path, make_user):
    path = load(instance, tmp_path, LEAKED)
    user = make_user(email="sari@example.com", password=LEAKED)
    server = start_server(instance, tmp_path)
    try:
        def breached_at_sign_in():
            answer = requests.post(server.url + "/api/auth/tokens", json={"email": user.email, "password": LEAKED},
                                   timeout=30)
            assert answer.status_code == 201, answer.text
            return answer.json()["password_breached"]

        assert breached_at_sign_in() is True
        code, out, err = flask_command(instance, "passwords", "breached-status")
        assert code == 0 and out.count("answers from the file's list") == 2, (out, err)

        # A new list, written as another user's 0600 file: the workers cannot read it.
        spoil(load(instance, tmp_path, LEAKED, NEWLY_LEAKED), "another user's, 0600")
        # Each worker sees it at its next request (it looks at the file at most once a second), and
        # keeps answering from the last good list.
        until_both_workers_report(app, "kept", breached_at_sign_in)
        code, out, err = flask_command(instance, "passwords", "breached-status")
        assert code == 1, (out, err)
        assert out.count("answers from another list") == 2 and out.count("ERROR: the breached-password list") == 2
        assert str(path) in out and FIX in out
        metrics = requests.get(server.url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
                               timeout=30).text
        assert "guardsvc_breached_list_unreadable 1.0" in metrics, metrics[-2000:]
        assert "keeps answering from the list it read" in log_of(server)

        # Loaded again the shipped way: readable by the service, read at once, the gauge back to 0.
        load(instance, tmp_path, LEAKED, NEWLY_LEAKED)
        until_both_workers_report(app, "loaded", breached_at_sign_in)
        code, out, err = flask_command(instance, "passwords", "breached-status")
        assert code == 0 and out.count("answers from the file's list") == 2, (out, err)
        metrics = requests.get(server.url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
                               timeout=30).text
        assert "guardsvc_breached_list_unreadable 0.0" in metrics
    finally:
        server.stop()


def test_the_loader_writes_a_filter_the_services_user_can_read(app, instance, tmp_path):
    os.chown(instance, STRANGER, STRANGER)  # the instance folder belongs to the service's user
    path = load(instance, tmp_path, LEAKED)
    stat = path.stat()
    assert (stat.st_uid, stat.st_mode & 0o777) == (STRANGER, 0o644)
    assert path.with_suffix(".json").stat().st_uid == STRANGER
    server = start_server(instance, tmp_path)
    try:
        code, out, err = flask_command(instance, "passwords", "breached-status")
        assert code == 0 and out.count("answers from the file's list") == 2, (out, err)
        assert "1 breached password hashes from" in out
    finally:
        server.stop()


def test_no_file_at_all_is_no_list_not_an_error(app, instance, tmp_path, make_user):
    server = start_server(instance, tmp_path)
    try:
        code, out, err = flask_command(instance, "passwords", "breached-status")
        assert code == 0 and out.count("answers from no list") == 2 and "the file: none at" in out, (out, err)
        code, out, err = flask_command(instance, "users", "create", "baru@example.com", "--name", "Baru",
                                       "--password", FINE)
        assert code == 0, (out, err)
    finally:
        server.stop()


def test_processes_that_stopped_reporting_are_left_out_then_forgotten(app, instance, tmp_path):
    from datetime import timedelta

    from guardsvc.accounts.models import BreachedListReader
    from guardsvc.storage import clock

    now = clock.utcnow()
    rows = [("node-b", 101, now - timedelta(minutes=5)),  # another node, renewed lately: listed
            ("node-b", 102, now - timedelta(hours=2)),  # silent for two hours: left out
            ("node-c", 103, now - timedelta(days=2)),  # silent for two days: left out, forgotten at a start
            (os.uname().nodename, 2**22 + 7, now)]  # this host, a process that has ended: left out, forgotten
    with app.app_context():
        for host, pid, reported_at in rows:
            db.session.add(BreachedListReader(process=f"{host}:{pid}", host=host, pid=pid, path="/x", state="kept",
                                              fingerprint="ab" * 32, loaded_at=now, problem="unreadable",
                                              reported_at=reported_at))
        db.session.commit()
    code, out, err = flask_command(instance, "passwords", "breached-status")
    assert code == 1 and "serving processes (1):\n  node-b:101:" in out, (out, err)
    assert "left out: 2 not heard from for over an hour" in out
    server = start_server(instance, tmp_path)  # a server's start forgets what is gone

    def processes():
        with app.app_context():
            found = sorted(db.session.scalars(select(BreachedListReader.process)))
            db.session.remove()
        return found if len(found) == 4 else None  # the two rows kept and the server's two workers

    try:
        assert wait_for(processes, "both workers' reports")[:2] == ["node-b:101", "node-b:102"]
    finally:
        server.stop()
