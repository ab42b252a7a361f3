"""Every command works as the first command on a freshly migrated database, in a process of its own.

That is how operators meet them: ``flask --app guardsvc db upgrade``, then one
command. Each command here gets a database of its own, migrated and untouched
(a copy of a migrated SQLite file, or a PostgreSQL database made from a migrated
template), and runs in a new process (tests/support/cli_processes.py: forked after the
imports, before anything was built). It must do its work, or refuse with a
readable message and exit status 1, never a traceback.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from guardsvc import create_app
from tests.support.cli_processes import CommandProcess
from tests.conftest import TEST_DATABASE_URL

PASSWORD = "kata-sandi-yang-panjang-7"
NOBODY = "tidak-ada@example.com"
# Three lines in the Pwned Passwords format (SHA1-HEX:COUNT).
BREACHED_LIST = str(Path(__file__).resolve().parents[1] / "support" / "data" / "pwned_sample.txt")
# A few lines as blocklists come (FireHOL and Spamhaus comments, IPv4 and IPv6).
BLOCKLIST = str(Path(__file__).resolve().parents[1] / "support" / "data" / "blocklist_sample.netset")

# (command line, exit status on an empty database). 1: refused with a message (nothing to act on).
COMMANDS = [
    (["users", "create", "admin@example.com", "--name", "Admin", "--password", PASSWORD, "--role", "admin"], 0),
    (["users", "list", "--json"], 0),
    (["users", "show", NOBODY], 1),
    (["users", "set-password", NOBODY, "--password", PASSWORD], 1),
    (["users", "set-role", NOBODY, "admin"], 1),
    (["users", "disable", NOBODY], 1),
    (["users", "enable", NOBODY], 1),
    (["users", "reset-2fa", NOBODY], 1),
    (["users", "passkeys", NOBODY], 1),
    (["tokens", "create", NOBODY], 1),
    (["tokens", "list", NOBODY], 1),
    (["tokens", "revoke", "1"], 1),
    (["tickets", "list"], 0),
    (["tickets", "decide", "TKT-00000000", "--approve"], 1),
    (["tickets", "decide-block", "BLK-00000000", "--approve"], 1),
    (["mail", "deliver", "--once"], 0),
    (["mail", "show"], 0),
    (["blocks", "add", "--ip", "198.51.100.7", "--reason", "uji"], 0),
    (["blocks", "lift", "BLK-00000000"], 1),
    (["blocks", "list"], 0),
    (["blocks", "import", BLOCKLIST], 0),
    (["blocks", "coverage"], 0),
    (["allows", "add", "--ip", "198.51.100.8"], 0),
    (["allows", "list"], 0),
    (["allows", "remove", "1"], 1),
    (["edge", "secret"], 0),
    (["bouncers", "add", "firewall"], 0),
    (["bouncers", "list"], 0),
    (["bouncers", "remove", "firewall"], 1),
    (["crowdsec", "pull"], 1),  # no LAPI set: says which settings are missing
    (["crowdsec", "delete-decisions"], 0),
    (["sessions", "purge"], 0),
    (["twofactor", "reseal"], 0),
    (["webhooks", "add", "https://1.1.1.1/guardsvc-hook"], 0),
    (["webhooks", "list"], 0),
    (["webhooks", "deliver"], 0),
    (["webhooks", "disable", "1"], 1),
    (["webhooks", "enable", "1"], 1),
    (["webhooks", "remove", "1"], 1),
    (["webhooks", "reseal"], 0),
    (["passwords", "breached-status"], 0),
    (["passwords", "load-breached", BREACHED_LIST], 0),
    (["nodes"], 0),
    (["nodes", "--json"], 0),
    (["purge", "--dry-run"], 0),
    (["purge"], 0),
    (["db", "current"], 0),
]
# Runs until stopped: it must still be running (no crash in its first rounds) when stopped.
RUNS_UNTIL_STOPPED = [["worker"], ["mail", "deliver"]]


class FreshDatabases:
    """Freshly migrated databases, one per call: copies of one migrated SQLite file, or PostgreSQL
    databases made from one migrated template."""

    def __init__(self, folder):
        self.folder, self.count = folder, 0
        self.server = TEST_DATABASE_URL.startswith("postgres")
        if self.server:
            self.template = f"{make_url(TEST_DATABASE_URL).database}_cli_template"
            self._admin(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)', f'CREATE DATABASE "{self.template}"')
            self.template_url = self._url(self.template)
        else:
            self.template_url = f"sqlite:///{folder / 'template.db'}"
        migrated = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": self.template_url})
        with migrated.app_context():
            from flask_migrate import upgrade

            from guardsvc.extensions import db

            upgrade()
            db.engine.dispose()  # a template must have no connection when it is copied
        self.made = []

    def _url(self, name):
        return make_url(TEST_DATABASE_URL).set(database=name).render_as_string(hide_password=False)

    def _admin(self, *statements):
        engine = create_engine(make_url(TEST_DATABASE_URL).set(database="postgres"), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                for statement in statements:
                    conn.execute(text(statement))
        finally:
            engine.dispose()

    def new(self):
        self.count += 1
        if self.server:
            name = f"{self.template}_{self.count}"
            self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
                        f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
            self.made.append(name)
            return self._url(name)
        path = self.folder / f"fresh-{self.count}.db"
        shutil.copy(self.folder / "template.db", path)
        return f"sqlite:///{path}"

    def drop_all(self):
        # FORCE: a command process that has not quite gone yet would make each drop wait 5 s for it.
        if self.server:
            self._admin(*(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)' for name in [*self.made, self.template]))


@pytest.fixture(scope="module")
def fresh_databases(app, tmp_path_factory):
    databases = FreshDatabases(tmp_path_factory.mktemp("cli-databases"))
    yield databases
    databases.drop_all()


def _environment(url, folder):
    instance = folder / "instance"
    instance.mkdir()
    # The breached-password filter in that instance folder too, where an operator's would be.
    return {"GUARDSVC_DATABASE_URL": url, "GUARDSVC_INSTANCE_PATH": str(instance),
            "GUARDSVC_BREACHED_PASSWORDS_FILE": ""}


def _start(argv, fresh_databases, tmp_path):
    folder = tmp_path / "command"
    folder.mkdir()
    return CommandProcess(argv, _environment(fresh_databases.new(), folder), folder)


@pytest.mark.parametrize("argv,status", COMMANDS, ids=[" ".join(argv[:2]) for argv, _ in COMMANDS])
def test_each_command_as_the_first_on_a_fresh_database(argv, status, fresh_databases, tmp_path):
    code, out, err = _start(argv, fresh_databases, tmp_path).wait()
    assert "Traceback" not in err, err
    assert code == status, (code, out, err)
    if status == 1:  # a refusal says why
        assert "Error" in err or "error" in err, err


@pytest.mark.parametrize("argv", RUNS_UNTIL_STOPPED, ids=" ".join)
def test_commands_that_run_until_stopped_start_cleanly_on_a_fresh_database(argv, fresh_databases, tmp_path):
    running, code, out, err = _start(argv, fresh_databases, tmp_path).stop_after(2.5)
    assert running and "Traceback" not in err, (code, out, err)
    assert code == 0, (code, out, err)  # SIGTERM: it finishes its round and ends cleanly


def test_every_command_of_the_service_is_in_the_list(app):
    listed = {" ".join(argv[:2]) if argv[0] not in ("purge", "worker") else argv[0]
              for argv, _ in COMMANDS} | {" ".join(argv) for argv in RUNS_UNTIL_STOPPED}
    found = set()

    def walk(command, path):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
        elif path[0] != "db":  # Flask-Migrate's own, but for the one above
            found.add(" ".join(path))

    walk(app.cli, [])
    assert found - listed == set()


def test_a_cold_flask_process_makes_a_bouncer_key_on_a_fresh_database(fresh_databases, tmp_path):
    """The one that crashed, as an operator types it: a new ``flask`` process, nothing forked."""
    env = {**os.environ, **_environment(fresh_databases.new(), tmp_path)}
    flask = Path(sys.executable).with_name("flask")
    made = subprocess.run([str(flask), "--app", "guardsvc", "bouncers", "add", "edge"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)
    assert made.returncode == 0, made.stderr
    assert len(made.stdout.strip().splitlines()[-1]) >= 32  # the key, alone on the last line


def test_the_first_command_of_a_fresh_install_makes_the_metrics_folder_it_is_given(tmp_path):
    """``make run`` and the systemd unit run ``flask db upgrade`` with PROMETHEUS_MULTIPROC_DIR set to a
    folder nothing has made yet (the server makes it later): a fresh process, nothing imported before."""
    instance, metrics = tmp_path / "instance", tmp_path / "run" / "metrics"
    env = {**os.environ, "GUARDSVC_INSTANCE_PATH": str(instance), "PROMETHEUS_MULTIPROC_DIR": str(metrics),
           "GUARDSVC_DATABASE_URL": f"sqlite:///{instance / 'guardsvc.db'}"}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "guardsvc", "db", "upgrade"], env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert metrics.is_dir() and any(metrics.glob("counter_*.db"))
