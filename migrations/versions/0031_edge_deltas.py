"""Edge deltas: a log of the blocks whose enforcement changed, for the edge's pulls since a cursor.

- edge_changes: one row per block inserted or updated (created, lifted, its expiry or target
  changed), written by triggers, so every writer (the service, a bulk import, a plain SQL
  statement) is seen. A proxy pulls the whole list once, then only the blocks logged after
  its cursor (guardsvc.blocks.edge).

Revision ID: 0031_edge_deltas
Revises: 0028_signin_places
Create Date: 2026-11-27 01:40:00.000000

"""
from alembic import op
import sqlalchemy as sa

from guardsvc.storage.migration_ops import create_index_online, drop_index_online


# revision identifiers, used by Alembic.
revision = '0031_edge_deltas'
down_revision = '0028_signin_places'
branch_labels = None
depends_on = None

# PostgreSQL: one INSERT ... SELECT per statement over its transition table, so a bulk insert of a
# million blocks logs them in one statement, not a million trigger calls. clock_timestamp(): the
# moment the row was logged (the edge tells a rolled-back id from one still being written by it).
POSTGRESQL_FUNCTION = """
CREATE OR REPLACE FUNCTION guardsvc_log_edge_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO edge_changes (block_id, logged_at)
    SELECT id, floor(extract(epoch FROM clock_timestamp()))::bigint FROM changed_blocks;
    RETURN NULL;
END
$$
"""
POSTGRESQL_TRIGGERS = [
    "CREATE TRIGGER blocks_edge_inserted AFTER INSERT ON blocks REFERENCING NEW TABLE AS changed_blocks "
    "FOR EACH STATEMENT EXECUTE FUNCTION guardsvc_log_edge_changes()",
    "CREATE TRIGGER blocks_edge_updated AFTER UPDATE ON blocks REFERENCING NEW TABLE AS changed_blocks "
    "FOR EACH STATEMENT EXECUTE FUNCTION guardsvc_log_edge_changes()",
]
SQLITE_NOW = "CAST(strftime('%s', 'now') AS INTEGER)"
SQLITE_TRIGGERS = [
    "CREATE TRIGGER blocks_edge_inserted AFTER INSERT ON blocks BEGIN "
    f"INSERT INTO edge_changes (block_id, logged_at) VALUES (NEW.id, {SQLITE_NOW}); END",
    # Only the columns the edge list is made of: a changed reason or self-release flag is no change.
    "CREATE TRIGGER blocks_edge_updated AFTER UPDATE OF network, device_id, expires_at, lifted_at ON blocks "
    f"BEGIN INSERT INTO edge_changes (block_id, logged_at) VALUES (NEW.id, {SQLITE_NOW}); END",
]


def upgrade():
    # A new table, then triggers on blocks: CREATE TRIGGER takes a lock on blocks for a moment only.
    op.create_table(
        'edge_changes',
        sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
        sa.Column('block_id', sa.Integer(), nullable=False),
        sa.Column('logged_at', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_edge_changes')),
        # SQLite: ids never reused, even after every row is deleted (an edge's cursor stays meaningful).
        sqlite_autoincrement=True,
        if_not_exists=True,
    )
    # The decision stream asks when each block was first logged (a new table: nothing to lock).
    op.create_index('ix_edge_changes_block_id', 'edge_changes', ['block_id'], if_not_exists=True)
    # The decision stream finds the blocks that expired since a bouncer's last pull, and what it
    # holds of a few blocks, without reading every row: built concurrently on live tables.
    create_index_online('ix_blocks_active_expiry', 'blocks', ['expires_at'], where=sa.text('lifted_at IS NULL'))
    create_index_online('ix_crowdsec_sent_decisions_block', 'crowdsec_sent_decisions', ['bouncer_id', 'block_id'])
    # A million address blocks: the device index holds device blocks only (its NULLs made SQLite's
    # planner scan the table after ANALYZE), and the list newest first needs id beside created_at
    # (an imported list shares one created_at). New ones first, then the old ones go.
    create_index_online('ix_blocks_active_device_id', 'blocks', ['device_id'],
                        where=sa.text('lifted_at IS NULL AND device_id IS NOT NULL'))
    drop_index_online('ix_blocks_active_device', 'blocks')
    create_index_online('ix_blocks_created_at_id', 'blocks', ['created_at', 'id'])
    drop_index_online('ix_blocks_created_at', 'blocks')
    # Where each bouncer's deltas start: an edge_changes id (null: never pulled).
    op.add_column('crowdsec_bouncers', sa.Column('cursor', sa.BigInteger(), nullable=True))
    if op.get_context().dialect.name == 'postgresql':
        op.execute(POSTGRESQL_FUNCTION)
        for name, statement in zip(('blocks_edge_inserted', 'blocks_edge_updated'), POSTGRESQL_TRIGGERS):
            op.execute(f'DROP TRIGGER IF EXISTS {name} ON blocks')  # a run that failed halfway
            op.execute(statement)
    else:
        for statement in SQLITE_TRIGGERS:
            op.execute(statement)


def downgrade():
    op.execute('DROP TRIGGER IF EXISTS blocks_edge_inserted ON blocks'
               if op.get_context().dialect.name == 'postgresql' else 'DROP TRIGGER IF EXISTS blocks_edge_inserted')
    op.execute('DROP TRIGGER IF EXISTS blocks_edge_updated ON blocks'
               if op.get_context().dialect.name == 'postgresql' else 'DROP TRIGGER IF EXISTS blocks_edge_updated')
    if op.get_context().dialect.name == 'postgresql':
        op.execute('DROP FUNCTION IF EXISTS guardsvc_log_edge_changes()')
    op.drop_column('crowdsec_bouncers', 'cursor')
    drop_index_online('ix_crowdsec_sent_decisions_block', 'crowdsec_sent_decisions')
    create_index_online('ix_blocks_created_at', 'blocks', ['created_at'])
    drop_index_online('ix_blocks_created_at_id', 'blocks')
    create_index_online('ix_blocks_active_device', 'blocks', ['device_id'], where=sa.text('lifted_at IS NULL'))
    drop_index_online('ix_blocks_active_device_id', 'blocks')
    drop_index_online('ix_blocks_active_expiry', 'blocks')
    op.drop_table('edge_changes')
