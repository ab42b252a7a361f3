"""Schema changes that a live PostgreSQL keeps serving through: for the Alembic revisions.

``CREATE INDEX`` locks a table against writes for as long as the build takes;
``CREATE INDEX CONCURRENTLY`` does not, but cannot run inside a transaction.
``create_index_online`` builds an index on an existing table concurrently, in
an autocommit block of its own, with no statement timeout (a large table may
take a while) - and in one plain statement on SQLite, where nothing else can
write meanwhile anyway. An index a failed concurrent build left behind
(``INVALID``) is dropped first, so running the upgrade again finishes the job.
"""
from alembic import op


def _is_postgresql():
    return op.get_context().dialect.name == "postgresql"


def create_index_online(name, table, columns, *, unique=False, where=None):
    """Build index ``name`` on ``table`` without blocking its writers (PostgreSQL: CONCURRENTLY)."""
    if not _is_postgresql():
        op.create_index(name, table, columns, unique=unique, sqlite_where=where)
        return
    with op.get_context().autocommit_block():
        op.execute("SET statement_timeout = 0")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")  # a build that failed halfway
        op.create_index(name, table, columns, unique=unique, postgresql_where=where,
                        postgresql_concurrently=True, if_not_exists=True)
        # Back to the connection's own timeout: a pooled connection must not keep "no limit".
        op.execute("RESET statement_timeout")


def drop_index_online(name, table):
    """Drop index ``name`` without blocking ``table``'s readers and writers (PostgreSQL: CONCURRENTLY)."""
    if not _is_postgresql():
        op.drop_index(name, table_name=table)
        return
    with op.get_context().autocommit_block():
        op.drop_index(name, table_name=table, postgresql_concurrently=True, if_exists=True)
