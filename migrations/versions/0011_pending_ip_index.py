"""Pending tickets by address: the per-address ceiling counts them from an index of pending rows only.

Revision ID: 0011_pending_ip_index
Revises: 0010_queue_indexes
Create Date: 2026-11-23 14:00:00.000000

"""
import sqlalchemy as sa

from guardsvc.storage.migration_ops import create_index_online, drop_index_online


# revision identifiers, used by Alembic.
revision = '0011_pending_ip_index'
down_revision = '0010_queue_indexes'
branch_labels = None
depends_on = None

PENDING = sa.text("status = 'pending'")


def upgrade():
    # Built concurrently: the tickets table keeps taking appeals while it builds.
    create_index_online('ix_unblock_tickets_pending_ip_address', 'unblock_tickets', ['ip_address'], where=PENDING)


def downgrade():
    drop_index_online('ix_unblock_tickets_pending_ip_address', 'unblock_tickets')
