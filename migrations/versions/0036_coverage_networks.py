"""What all blocks cover together, and self-releases counted per network (contract sections 15 and 14).

- block_gate: the row every writer of what blocks cover (and every maker of an allow entry that yields
  to later blocks) updates first, so two writers cannot together pass GUARDSVC_MAX_COVERAGE.
- block_coverage: public IPv4 addresses covered by the active blocks, summed by the hour they expire in;
  counted here from the blocks already stored (online upgrades; an offline --sql script leaves it to the
  first writer, which counts when it finds no gate row).
- self_releases.network_key: the network (the blocked range, or the client's /24 or /48 in a wider one)
  the cooldown and the hour's share are counted by. A nullable column and an index built concurrently:
  the previous release keeps serving on this schema.

Revision ID: 0036_coverage_networks
Revises: 0035_signin_countries
Create Date: 2026-11-29 04:30:00.000000

"""
from datetime import UTC, datetime

from alembic import op
import sqlalchemy as sa

from guardsvc.storage.migration_ops import create_index_online, drop_index_online


# revision identifiers, used by Alembic.
revision = '0036_coverage_networks'
down_revision = '0035_signin_countries'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'block_gate',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('passed_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_block_gate')),
        if_not_exists=True,
    )
    op.create_table(
        'block_coverage',
        sa.Column('ends_at', sa.DateTime(), nullable=False),
        sa.Column('addresses', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('ends_at', name=op.f('pk_block_coverage')),
        if_not_exists=True,
    )
    # IF NOT EXISTS (a run that failed halfway, after the concurrent index) where the database has it.
    op.add_column('self_releases', sa.Column('network_key', sa.String(length=64), nullable=True),
                  if_not_exists=op.get_context().dialect.name == 'postgresql')
    create_index_online('ix_self_releases_network_key_created_at', 'self_releases', ['network_key', 'created_at'])
    if not op.get_context().as_sql:
        _count_existing_blocks(op.get_bind())


def _count_existing_blocks(connection):
    """What the active blocks already stored cover, by expiry hour; the gate row says it is counted."""
    from guardsvc.blocks.coverage import active_ipv4_rows, count_by_bucket

    now = datetime.now(UTC).replace(tzinfo=None)
    buckets = count_by_bucket(active_ipv4_rows(connection, now))
    coverage = sa.table('block_coverage', sa.column('ends_at', sa.DateTime()), sa.column('addresses', sa.BigInteger()))
    gate = sa.table('block_gate', sa.column('id', sa.Integer()), sa.column('passed_at', sa.DateTime()))
    connection.execute(coverage.delete())  # a run that failed halfway
    connection.execute(gate.delete())
    if buckets:
        connection.execute(coverage.insert(), [{"ends_at": ends_at, "addresses": addresses}
                                               for ends_at, addresses in buckets.items()])
    connection.execute(gate.insert(), [{"id": 1, "passed_at": now}])


def downgrade():
    drop_index_online('ix_self_releases_network_key_created_at', 'self_releases')
    op.drop_column('self_releases', 'network_key')
    op.drop_table('block_coverage')
    op.drop_table('block_gate')
