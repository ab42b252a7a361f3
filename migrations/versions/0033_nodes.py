"""Several nodes: the nodes that report themselves, the fleet's fingerprint key, and what migrations declared.

- nodes: one row per node (host and instance folder), refreshed every few seconds by one of its
  processes, with fingerprints of the settings every node must share (guardsvc.nodes).
- fleet_keys: the random key those fingerprints are made with, read by every node.
- schema_requirements: a migration that breaks older code (a removal, a rename) records here the
  oldest revision whose code it still serves, so older nodes know whether the schema ahead of them
  serves them (guardsvc.storage.revisions). Only new tables: compatible with the previous release.

Revision ID: 0033_nodes
Revises: 0031_edge_deltas
Create Date: 2026-11-29 09:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0033_nodes'
down_revision = '0031_edge_deltas'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'nodes',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('node_key', sa.String(length=64), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('version', sa.String(length=40), nullable=False),
        sa.Column('code_revision', sa.String(length=200), nullable=False),
        sa.Column('schema_revision', sa.String(length=200), nullable=True),
        sa.Column('started_at', sa.DateTime(), nullable=False),
        sa.Column('last_seen_at', sa.DateTime(), nullable=False),
        sa.Column('fingerprints', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_nodes')),
        sa.UniqueConstraint('node_key', name=op.f('uq_nodes_node_key')),
        if_not_exists=True,
    )
    op.create_index(op.f('ix_nodes_last_seen_at'), 'nodes', ['last_seen_at'], if_not_exists=True)
    op.create_table(
        'fleet_keys',
        sa.Column('purpose', sa.String(length=40), nullable=False),
        sa.Column('key', sa.String(length=128), nullable=False),
        sa.PrimaryKeyConstraint('purpose', name=op.f('pk_fleet_keys')),
        if_not_exists=True,
    )
    op.create_table(
        'schema_requirements',
        sa.Column('revision', sa.String(length=64), nullable=False),
        sa.Column('breaks_code_before', sa.String(length=64), nullable=False),
        sa.Column('applied_at', sa.DateTime(), server_default=sa.text('CURRENT_TIMESTAMP'), nullable=False),
        sa.PrimaryKeyConstraint('revision', name=op.f('pk_schema_requirements')),
        if_not_exists=True,
    )


def downgrade():
    op.drop_table('schema_requirements')
    op.drop_table('fleet_keys')
    op.drop_index(op.f('ix_nodes_last_seen_at'), table_name='nodes')
    op.drop_table('nodes')
