"""/readyz and a schema ahead of the code: ready unless a migration that ran declared it breaks this code.

The next release's migrations are compatible with this code unless one declares otherwise
(``breaks_code_before``, recorded in ``schema_requirements`` when it runs: guardsvc.storage.revisions).
Here the database is moved ahead by hand, and by a real migration in a copy of the migrations
folder; tests/migrations/test_upgrade_live.py runs whole releases against each other.
"""
import contextlib
import io
import shutil
from contextlib import contextmanager

import pytest
from flask_migrate import downgrade, upgrade
from sqlalchemy import text

from guardsvc.extensions import db
from guardsvc.storage.database import schema_state
from guardsvc.storage.revisions import SchemaRequirement, code_revisions
from tests.support.migration_files import migration_source

NEXT = "9999_next_release"


def head_of(app):
    [head] = code_revisions(app)[0]
    return head


@contextmanager
def database_at(app, revision, declarations=()):
    """The database stamped at ``revision`` (unknown to this code: newer) with ``declarations`` recorded."""
    with app.app_context():
        current = db.session.scalar(text("SELECT version_num FROM alembic_version"))
        db.session.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revision})
        for declared, needs in declarations:
            db.session.add(SchemaRequirement(revision=declared, breaks_code_before=needs))
        db.session.commit()
    try:
        yield
    finally:
        with app.app_context():
            db.session.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": current})
            db.session.execute(SchemaRequirement.__table__.delete())
            db.session.commit()


def test_a_schema_ahead_by_compatible_migrations_keeps_this_node_ready(app, client):
    with database_at(app, NEXT):
        answer = client.get("/readyz")
        assert answer.status_code == 200 and answer.get_json() == {"success": True, "status": "ready"}
        with app.app_context():
            assert schema_state(app) == "ahead"
    with app.app_context():
        assert schema_state(app) == "current"


def test_a_migration_declared_incompatible_with_this_code_takes_it_out_of_readiness(app, client):
    with database_at(app, NEXT, [(NEXT, "9998_code_stops_reading_x")]):
        answer = client.get("/readyz")
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
        assert answer.get_json()["reason"] == "schema_incompatible" and answer.get_json()["success"] is False
    # Declared against code this one already is (its own head): it still serves.
    with database_at(app, NEXT, [(NEXT, head_of(app))]):
        assert client.get("/readyz").status_code == 200


def migrations_with_a_removal(app, folder):
    """A copy of the migrations folder with one more revision that declares it breaks older code."""
    shutil.copytree(app.extensions["migrate"].directory, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "versions" / f"{NEXT}.py").write_text(migration_source(
        "A removal the previous release's code would not survive.", NEXT, head_of(app), breaks_code_before=NEXT))
    return str(folder)


def test_a_migration_that_declares_itself_records_it_when_it_runs_and_forgets_it_when_undone(app, client, tmp_path):
    folder = migrations_with_a_removal(app, tmp_path / "migrations")
    head = head_of(app)
    with app.app_context():
        upgrade(directory=folder, revision=NEXT)
        try:
            assert db.session.scalar(text("SELECT version_num FROM alembic_version")) == NEXT
            [recorded] = db.session.query(SchemaRequirement).all()
            assert (recorded.revision, recorded.breaks_code_before) == (NEXT, NEXT)
            db.session.remove()
            assert client.get("/readyz").get_json()["reason"] == "schema_incompatible"
        finally:
            downgrade(directory=folder, revision=head)
        assert db.session.query(SchemaRequirement).count() == 0
        db.session.remove()
    assert client.get("/readyz").status_code == 200
    # The SQL a DBA would be handed (offline mode) records and forgets it the same way.
    with app.app_context():
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            upgrade(directory=folder, revision=f"{head}:{NEXT}", sql=True)
            downgrade(directory=folder, revision=f"{NEXT}:{head}", sql=True)
    sql = " ".join(printed.getvalue().split())
    assert f"INSERT INTO schema_requirements (revision, breaks_code_before) VALUES ('{NEXT}', '{NEXT}')" in sql
    assert f"DELETE FROM schema_requirements WHERE schema_requirements.revision = '{NEXT}'" in sql


def test_db_upgrade_of_older_code_on_a_newer_schema_does_nothing_unless_a_migration_says_it_breaks_it(app, capfd):
    """A node of the previous release restarted mid-upgrade runs `db upgrade` first (the shipped unit does)."""
    with database_at(app, NEXT), app.app_context():
        upgrade()  # nothing to do, and no error: the node may start
        assert db.session.scalar(text("SELECT version_num FROM alembic_version")) == NEXT
        db.session.remove()
    with database_at(app, NEXT, [(NEXT, "9998_code_stops_reading_x")]), app.app_context():
        with pytest.raises(SystemExit) as refused:
            upgrade()
        assert refused.value.code == 1
        assert "no longer serve this code (code before 9998_code_stops_reading_x)" in capfd.readouterr().err
        db.session.remove()
