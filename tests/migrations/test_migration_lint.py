"""Every migration's PostgreSQL SQL passes squawk, or the exception is written down here with its reason.

The SQL is what ``flask db upgrade A:B --sql`` prints for each revision on its
own (Alembic's offline mode, no database needed). squawk (``.squawk.toml``)
flags what would lock a live table: an index built or dropped without
CONCURRENTLY, a column dropped or retyped, a constraint checked under a lock,
no lock_timeout. A new migration must pass; the revisions below predate the
rule, and the list must stay exact (an entry that no longer occurs fails too).
"""
import contextlib
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from guardsvc import create_app
from tests.support.live import ROOT

SQUAWK = Path(__import__("sys").executable).with_name("squawk")
# (revision, rule): why it stays. Revisions written before migrations were linted, and a rule that
# cannot be met by any statement PostgreSQL has (a check constraint is widened only by replacing it).
ALLOWED = {
    ("0004_device_cooldown", "require-concurrent-index-deletion"):
        "swaps the pending-ticket unique index in one transaction, so the rule is never unenforced",
    ("0004_device_cooldown", "require-concurrent-index-creation"): "the same swap",
    ("0005_sessions", "ban-drop-column"): "historical: the column left before expand-then-contract was the rule",
    ("0006_conversation", "adding-foreign-key-constraint"): "historical: a foreign key on the tickets table",
    ("0006_conversation", "constraint-missing-not-valid"): "the same foreign key",
    ("0008_exact_approvals", "ban-drop-not-null"): "historical: columns made optional for exact approvals",
    ("0009_account_secrets", "changing-column-type"): "historical: totp_secret widened to hold sealed secrets",
    ("0028_signin_places", "ban-drop-constraint"):
        "the check of login_events.result is widened to three new results: the old check is dropped and the wider "
        "one added NOT VALID in the same transaction: nothing the old check refused becomes possible but those three",
    ("0017_crowdsec", "require-concurrent-index-creation"):
        "historical: built in the transaction that creates the CrowdSec tables, so a failure leaves none "
        "of them behind (a concurrent build would commit them first)",
}


# What squawk calls a removal or a rename: code of the previous release may still read what such a
# migration takes away, so it must declare the oldest code it serves (``breaks_code_before``,
# guardsvc.storage.revisions) and wait for a later release (docs/production.md, "A removal").
REMOVALS = {"ban-drop-column", "ban-drop-table", "renaming-column", "renaming-table", "changing-column-type"}
# The last revision written before that rule: it and its ancestors are judged by ALLOWED alone.
BEFORE_THE_RULE = "0031_edge_deltas"


def scripts(flask_app):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", flask_app.extensions["migrate"].directory)
    return ScriptDirectory.from_config(config)


def declared(flask_app):
    """``{revision: the revision it declares as the oldest code it serves}``."""
    return {script.revision: script.module.breaks_code_before for script in scripts(flask_app).walk_revisions()
            if getattr(script.module, "breaks_code_before", None)}


def undeclared_removals(found, declarations, before_the_rule):
    """The (revision, rule) squawk found that remove or rename without the migration declaring it."""
    return {(revision, rule) for revision, rule in found
            if rule in REMOVALS and revision not in declarations and revision not in before_the_rule}


def revisions(flask_app):
    """(previous, revision) pairs of the migration chain, oldest first."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", flask_app.extensions["migrate"].directory)
    chain = list(reversed(list(ScriptDirectory.from_config(config).walk_revisions())))
    return [(script.down_revision or "base", script.revision) for script in chain]


def offline_sql(flask_app, previous, revision):
    from flask_migrate import upgrade

    printed = io.StringIO()
    with flask_app.app_context(), contextlib.redirect_stdout(printed):
        upgrade(revision=f"{previous}:{revision}", sql=True)
    return printed.getvalue()


def test_every_migration_passes_the_linter_or_is_a_written_down_exception(tmp_path):
    if not SQUAWK.exists() and shutil.which("squawk") is None:
        pytest.skip("squawk is not installed (scripts/bootstrap test installs squawk-cli)")
    flask_app = create_app({"TESTING": True, "SECRET_KEY": "lint",
                            "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://lint@127.0.0.1:9/lint"})
    files = []
    for previous, revision in revisions(flask_app):
        path = tmp_path / f"{revision}.sql"
        path.write_text(offline_sql(flask_app, previous, revision))
        files.append(path)
    assert "CREATE INDEX CONCURRENTLY IF NOT EXISTS ix_unblock_tickets_pending_ip_address" in (
        tmp_path / "0011_pending_ip_index.sql").read_text()
    squawk = str(SQUAWK) if SQUAWK.exists() else shutil.which("squawk")
    done = subprocess.run([squawk, "--config", str(ROOT / ".squawk.toml"), "--reporter", "json", *map(str, files)],
                          capture_output=True, text=True)
    found = {(Path(item["file"]).stem, item["rule_name"]) for item in json.loads(done.stdout or "[]")}
    declarations = declared(flask_app)
    before_the_rule = {BEFORE_THE_RULE, *(script.revision for script in
                                          scripts(flask_app).iterate_revisions(BEFORE_THE_RULE, "base"))}
    assert undeclared_removals(found, declarations, before_the_rule) == set(), (
        "a removal or rename that does not declare breaks_code_before (docs/production.md)")
    declared_removals = {(revision, rule) for revision, rule in found if rule in REMOVALS and revision in declarations}
    assert found - set(ALLOWED) - declared_removals == set(), "migrations that would lock a live table"
    assert set(ALLOWED) - found == set(), "exceptions that no longer occur: remove them"


def test_a_removal_passes_only_when_its_migration_declares_the_code_it_breaks():
    found = {("0040_drop_x", "ban-drop-column"), ("0041_add_y", "require-concurrent-index-creation"),
             ("0005_sessions", "ban-drop-column")}
    assert undeclared_removals(found, {}, {"0005_sessions"}) == {("0040_drop_x", "ban-drop-column")}
    assert undeclared_removals(found, {"0040_drop_x": "0039_stop_reading_x"}, {"0005_sessions"}) == set()


def test_every_declaration_names_the_migration_itself_or_an_earlier_one():
    flask_app = create_app({"TESTING": True, "SECRET_KEY": "lint",
                            "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://lint@127.0.0.1:9/lint"})
    directory = scripts(flask_app)
    for revision, needs in declared(flask_app).items():
        lineage = {script.revision for script in directory.iterate_revisions(revision, "base")}
        assert needs in lineage, f"{revision} declares breaks_code_before = {needs!r}, not itself or an ancestor"


def test_the_linter_catches_a_blocking_index_build(tmp_path):
    if not SQUAWK.exists():
        pytest.skip("squawk is not installed")
    sql = tmp_path / "blocking.sql"
    sql.write_text("SET lock_timeout = '5s';\nBEGIN;\nCREATE INDEX ix_a ON unblock_tickets (email);\nCOMMIT;\n")
    done = subprocess.run([str(SQUAWK), "--config", str(ROOT / ".squawk.toml"), "--reporter", "json", str(sql)],
                          capture_output=True, text=True)
    assert "require-concurrent-index-creation" in {item["rule_name"] for item in json.loads(done.stdout)}
