"""Upgrades without an outage (contract section 17): nodes keep serving, and stay ready, while the next
release's ``flask db upgrade`` runs under them, and after it.

- This checkout's nodes (two, on one PostgreSQL database) serve submit, check, save-my-ip, tokens, a page
  and forward auth without one error while a copy of the project with one more, additive migration runs
  its ``db upgrade``; their /readyz stays 200; a node of that copy then serves beside them. A migration
  that declares it breaks older code then takes the older nodes out of readiness (they still serve).
- The previous release (``previous_release.toml``: a commit taken out of the repository's history) serves
  against this checkout's newest schema the same way. Its readiness is checked as the record says: a
  release carrying the rule stays ready; the one recorded today predates the rule (503 schema_behind).
"""
import os
import shutil
import subprocess
import sys
import threading
import tomllib
from collections import Counter

import pytest
import requests
from flask_migrate import upgrade

from guardsvc.accounts import service as accounts
from guardsvc.extensions import db
from guardsvc.storage.revisions import code_revisions
from tests.support.blocks_helpers import PROXY_SECRET
from tests.support.factories import PASSWORD, SUBMIT, submit_body
from tests.support.fleet_support import (Database, dispose, migrate_in_process, needs_a_server_database, node_settings,
                                 separate_database, start_nodes)
from tests.support.live import ROOT, LiveServer, wait_for
from tests.support.migration_files import migration_source

pytestmark = [pytest.mark.live, needs_a_server_database]
RECORD = ROOT / "previous_release.toml"
# What a node needs of a project folder to run (the rest is tests, docs, tools).
RUNTIME = ("guardsvc", "migrations", "templates", "static", "wsgi.py", "gunicorn.conf.py")
ROUND = 8  # the answers of one round of Traffic: every operation once, and /readyz
NEXT, REMOVAL = "9990_next_release", "9991_removal"

RELEASE_NOTES = ('op.create_table("release_notes", sa.Column("id", sa.Integer(), primary_key=True), '
                 'sa.Column("note", sa.Text()))')
ADDITIVE = dict(
    title="The next release's change, as the rule allows it: only additions.",
    imports="\nfrom guardsvc.storage.migration_ops import create_index_online\n",
    upgrade=f"""
        {RELEASE_NOTES}
        op.execute("SELECT pg_sleep(1)")  # stands for filling the new table: the old nodes serve meanwhile
        op.add_column("unblock_tickets", sa.Column("triage_note", sa.Text(), nullable=True))
        op.add_column("blocks", sa.Column("priority", sa.Integer(), nullable=False, server_default="0"))
        create_index_online("ix_unblock_tickets_email", "unblock_tickets", ["email"])
    """,
    downgrade="""
        op.drop_index("ix_unblock_tickets_email", table_name="unblock_tickets")
        op.drop_column("blocks", "priority")
        op.drop_column("unblock_tickets", "triage_note")
        op.drop_table("release_notes")
    """)
DECLARED_REMOVAL = dict(
    title="A removal, a release later: code older than this revision is declared broken by it.",
    upgrade='op.drop_table("release_notes")', downgrade=RELEASE_NOTES, breaks_code_before=REMOVAL)


class Traffic:
    """What users and a proxy ask of each node, over and over, until stopped: one client a node, pausing
    ``PAUSE`` after each answer (steady traffic, not a flood that would starve the upgrade of the CPU).

    Every answer that is not the expected one, and every request that fails, is an error. /readyz is
    asked too; its answers are kept per node (``readiness``) and are errors only for the nodes that
    must stay ready.
    """

    PAUSE = 0.05
    EXPECTED = {"submit": {201}, "check": {200}, "save-my-ip": {200, 201}, "tokens": {200}, "page": {200},
                "forward-auth": {204}}

    def __init__(self, token):
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self.errors, self.readiness, self.answered = [], Counter(), Counter()
        self.must_stay_ready = set()
        self.stopping = threading.Event()
        self.threads = []
        self.lock = threading.Lock()
        self.addresses = iter(range(1, 10**6))
        self.tickets = []

    def add(self, name, server, *, must_stay_ready=True):
        if must_stay_ready:
            self.must_stay_ready.add(name)
        thread = threading.Thread(target=self._run, args=(name, server), daemon=True)
        thread.start()
        self.threads.append(thread)

    def _address(self):
        with self.lock:
            number = next(self.addresses)
        return f"10.{number // 62500 % 250}.{number // 250 % 250}.{number % 250 + 1}"

    def _run(self, name, server):
        while not self.stopping.is_set():
            with self.lock:  # the newest ticket any node stored: a node reads what another (release) wrote
                number = self.tickets[-1] if self.tickets else None
            visitor = self._address()
            calls = {
                "submit": lambda: requests.post(server.url + SUBMIT, json=submit_body(email=f"u{visitor}@example.com"),
                                                headers={"Accept": "application/json", "X-Forwarded-For": visitor},
                                                timeout=10),
                "check": lambda: requests.get(f"{server.url}/api/guard/unblock-tickets/check/{number}",
                                              headers={"Accept": "application/json"}, timeout=10),
                "save-my-ip": lambda: requests.post(server.url + "/api/security/trusted-ips/save-my-ip",
                                                    json={"device_name": "Laptop"}, timeout=10,
                                                    headers={**self.headers, "X-Forwarded-For": visitor}),
                "tokens": lambda: requests.get(server.url + "/api/auth/tokens", headers=self.headers, timeout=10),
                "page": lambda: requests.get(server.url + "/banding", timeout=10),
                "forward-auth": lambda: requests.get(server.url + "/api/guard/forward-auth", timeout=10, headers={
                    "X-Guardsvc-Secret": PROXY_SECRET, "X-Forwarded-For": visitor}),
            }
            for operation, call in calls.items():
                if operation == "check" and number is None:
                    continue
                answer = self._ask(name, operation, call)
                if operation == "submit" and answer is not None and answer.status_code == 201:
                    with self.lock:
                        self.tickets.append(answer.json()["ticket_number"])
            ready = self._ask(name, "readyz", lambda: requests.get(server.url + "/readyz", timeout=10))
            if ready is not None:
                reason = "" if ready.status_code == 200 else ready.json().get("reason", "")
                with self.lock:
                    self.readiness[(name, ready.status_code, reason)] += 1
                    if ready.status_code != 200 and name in self.must_stay_ready:
                        self.errors.append(f"{name} readyz: {ready.status_code} {reason}")

    def _ask(self, name, operation, call):
        self.stopping.wait(self.PAUSE)
        try:
            answer = call()
        except requests.RequestException as exc:
            with self.lock:
                self.errors.append(f"{name} {operation}: {exc.__class__.__name__}")
            return None
        with self.lock:
            self.answered[name] += 1
            if operation in self.EXPECTED and answer.status_code not in self.EXPECTED[operation]:
                self.errors.append(f"{name} {operation}: {answer.status_code} {answer.text[:200]}")
        return answer

    def count(self, name):
        with self.lock:
            return self.answered[name]

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(30)


def copy_runtime(source, target):
    """The folders and files a node runs from (compiled catalogues included), as a project folder of its own."""
    target.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME:
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source / name, target / name)
    return target


@pytest.fixture(scope="module")
def next_release(tmp_path_factory, app):
    """A copy of this project with one more migration, an additive one: the next release, as its upgrade sees it."""
    folder = copy_runtime(ROOT, tmp_path_factory.mktemp("next-release"))
    [head] = code_revisions(app)[0]
    (folder / "migrations" / "versions" / f"{NEXT}.py").write_text(migration_source(revision=NEXT, down=head,
                                                                                    **ADDITIVE))
    return folder


def a_user_and_token(app):
    with app.app_context():
        user = accounts.create_user("operator@example.com", "Operator", PASSWORD, "user")
        token, _ = accounts.create_token(user, "uji", client=None)
        db.session.commit()
        db.session.remove()
    return token


def upgrade_copy(this, folder):
    """``flask db upgrade`` of the copy in ``folder``: its migrations, run in this process (the copy's package is
    this checkout's, so this is the command it would run, without a cold start)."""
    with this.app_context():
        upgrade(directory=str(folder / "migrations"))


def test_two_nodes_stay_ready_and_serving_while_the_next_release_migrates_then_serves_beside_them(
        next_release, tmp_path):
    url = separate_database("upgrade")
    this = migrate_in_process(url)
    database = Database(url)
    settings = {name: node_settings(url, tmp_path, name) for name in ("node-a", "node-b", "node-c")}
    nodes = start_nodes({name: settings[name] for name in ("node-a", "node-b")})
    traffic = Traffic(a_user_and_token(this))
    newer = None
    try:
        for name, server in nodes.items():
            traffic.add(name, server)
        wait_for(lambda: min(traffic.count("node-a"), traffic.count("node-b")) >= ROUND, "traffic on both nodes")
        before = {name: traffic.count(name) for name in nodes}
        upgrade_copy(this, next_release)
        assert all(traffic.count(name) > before[name] for name in nodes)  # they answered while it ran
        assert database.value("SELECT version_num FROM alembic_version") == NEXT
        newer = LiveServer(workers=2, env=settings["node-c"], cwd=next_release)
        traffic.add("node-c", newer)
        wait_for(lambda: traffic.count("node-c") >= ROUND, "traffic on the next release's node")
        traffic.stop()
        assert traffic.errors == [], traffic.errors[:20]
        assert {(name, status) for name, status, _ in traffic.readiness} == {
            ("node-a", 200), ("node-b", 200), ("node-c", 200)}
        # The fleet: every node reports the database's new revision, its own code's, and they agree.
        [head] = code_revisions(this)[0]

        def reported():
            return {name: (code, schema) for name, code, schema in database.rows(
                "SELECT name, code_revision, schema_revision FROM nodes")}

        wait_for(lambda: reported() == {"node-a": (head, NEXT), "node-b": (head, NEXT), "node-c": (NEXT, NEXT)},
                 "every node reporting the new schema")
        listed = this.test_cli_runner().invoke(args=["nodes"])
        assert listed.exit_code == 0, listed.output
        # A release later, a removal that declares it breaks older code: those nodes leave readiness, and serve on.
        (next_release / "migrations" / "versions" / f"{REMOVAL}.py").write_text(
            migration_source(revision=REMOVAL, down=NEXT, **DECLARED_REMOVAL))
        upgrade_copy(this, next_release)
        for server in (nodes["node-a"], newer):  # node-c's code is the one before the removal too
            answer = requests.get(server.url + "/readyz", timeout=10)
            assert answer.status_code == 503 and answer.json()["reason"] == "schema_incompatible"
            assert requests.get(server.url + "/api/guard/forward-auth", timeout=10,
                                headers={"X-Guardsvc-Secret": PROXY_SECRET}).status_code == 204
        assert database.value("SELECT breaks_code_before FROM schema_requirements") == REMOVAL
    finally:
        traffic.stop()
        for server in [*nodes.values(), newer]:
            if server is not None:
                server.stop()
        database.dispose()
        dispose(this)


@pytest.fixture(scope="module")
def previous_release(tmp_path_factory):
    """The recorded previous release's runtime files, from the repository's history; skipped without it."""
    record = tomllib.loads(RECORD.read_text())
    commit = record["commit"]
    known = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
    if known.returncode != 0:
        pytest.skip(f"this clone has no history of the previous release {commit} (previous_release.toml): "
                    "clone with history, or `git fetch --unshallow`")
    folder = tmp_path_factory.mktemp("previous-release")
    archive = subprocess.run(["git", "archive", "--format=tar", commit, *RUNTIME], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    compile_catalogues(folder)
    setup = subprocess.run(["git", "show", f"{commit}:setup.cfg"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout
    return folder, record["ready_when_schema_ahead"], its_own_requirements(setup, folder / "site-packages")


def its_own_requirements(setup_cfg, target):
    """``PYTHONPATH`` for the previous release: what its setup.cfg requires and this venv lacks (a dependency
    this release dropped, or one at a version it does not accept), installed beside it, ahead of this venv's."""
    import configparser
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    config = configparser.ConfigParser()
    config.read_string(setup_cfg)
    missing = []
    for line in config["options"]["install_requires"].split("\n"):
        if not line.strip():
            continue
        requirement = Requirement(line.strip())
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            installed = None
        if installed is None or not requirement.specifier.contains(installed, prereleases=True):
            missing.append(str(requirement))
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                        *missing], check=True, timeout=300)
    return {"PYTHONPATH": str(target)} if missing else {}


def compile_catalogues(folder):
    """The .mo files a checkout compiles at set-up (they are not in git)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in (folder / "guardsvc" / "translations").glob("*/LC_MESSAGES/messages.po"):
        with po.open("rb") as source, po.with_suffix(".mo").open("wb") as target:
            write_mo(target, read_po(source))


OLD_RELEASE_SETUP = """
from guardsvc import create_app
runner = create_app().test_cli_runner()
for args in (["db", "upgrade"],
             ["users", "create", "operator@example.com", "--name", "Operator", "--password", {password!r}],
             ["tokens", "create", "operator@example.com"]):
    done = runner.invoke(args=args)
    assert done.exit_code == 0, (args, done.output)
print(done.output.strip().splitlines()[-1])
"""


def test_the_previous_release_keeps_serving_while_this_release_migrates(previous_release, tmp_path):
    folder, ready_when_ahead, requirements = previous_release
    url = separate_database("previous")
    database = Database(url)
    settings = {name: node_settings(url, tmp_path, name) for name in ("previous", "node-a")}
    settings["previous"].update(requirements)
    # The previous release migrates its database and makes an account with a token, with its own commands.
    made = subprocess.run([sys.executable, "-c", OLD_RELEASE_SETUP.format(password=PASSWORD)], cwd=folder,
                          env={**os.environ, **settings["previous"]}, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stdout + made.stderr
    token = made.stdout.strip().splitlines()[-1]
    old_head = database.value("SELECT version_num FROM alembic_version")
    old = start_nodes({"previous": settings["previous"]}, cwd=folder)["previous"]
    traffic = Traffic(token)
    current = this = None
    try:
        traffic.add("previous", old, must_stay_ready=ready_when_ahead)
        wait_for(lambda: traffic.count("previous") >= ROUND, "traffic on the previous release's node")
        this = migrate_in_process(url)  # this checkout's `flask db upgrade`, in this process, under the old node
        this_head = database.value("SELECT version_num FROM alembic_version")
        assert this_head != old_head
        current = LiveServer(workers=2, env=settings["node-a"])
        traffic.add("node-a", current)
        after = traffic.count("previous")
        wait_for(lambda: traffic.count("node-a") >= ROUND and traffic.count("previous") >= after + ROUND,
                 "traffic on both releases after the upgrade")
        assert this.test_cli_runner().invoke(args=["nodes"]).output.startswith("node-a\t")  # the old one has no report
        traffic.stop()
        assert traffic.errors == [], traffic.errors[:20]
        answers = {(name, status, reason) for (name, status, reason) in traffic.readiness}
        assert ("node-a", 200, "") in answers and not [a for a in answers if a[0] == "node-a" and a[1] != 200]
        if ready_when_ahead:
            assert {a for a in answers if a[0] == "previous"} == {("previous", 200, "")}
        else:  # that release answers 503 once the schema is not its own head: recorded, and seen
            assert ("previous", 503, "schema_behind") in answers
    finally:
        traffic.stop()
        for server in (old, current):
            if server is not None:
                server.stop()
        database.dispose()
        if this is not None:
            dispose(this)
