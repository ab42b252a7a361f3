"""A migration that would wait for a lock gives up after GUARDSVC_MIGRATION_LOCK_TIMEOUT_SECONDS (PostgreSQL).

Waiting behind a long transaction, an ALTER TABLE would hold every later read
and write of the table in the queue behind it; with ``lock_timeout`` it fails
instead, and can be run again later.
"""
import pytest
from flask_migrate import downgrade, upgrade
from sqlalchemy import create_engine, text

from guardsvc.extensions import db


def test_a_migration_behind_a_held_lock_gives_up_instead_of_queueing(app, monkeypatch):
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("lock_timeout is PostgreSQL's")
        url = db.engine.url
        # To the revision whose undoing needs the table's strongest lock, with nothing held: later revisions
        # build and drop indexes concurrently, each step committed on its own.
        downgrade(revision="0021_device_labels")
        db.session.remove()
        before = db.session.scalar(text("SELECT version_num FROM alembic_version"))
    monkeypatch.setitem(app.config, "MIGRATION_LOCK_TIMEOUT_SECONDS", 0.5)
    holder = create_engine(url).connect()
    transaction = holder.begin()
    holder.execute(text("LOCK TABLE blocks IN ACCESS SHARE MODE"))  # a long read, as a report would hold
    try:
        with app.app_context(), pytest.raises(Exception, match="lock timeout"):
            downgrade(revision="0020_owner_lockouts")  # 0021 drops a column of blocks: ACCESS EXCLUSIVE
    finally:
        transaction.rollback()
        holder.close()
    with app.app_context():
        assert db.session.scalar(text("SELECT version_num FROM alembic_version")) == before  # nothing half done
        upgrade()
