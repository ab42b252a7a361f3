"""Queue indexes: the newest tickets first, without sorting the whole table.

Revision ID: 0010_queue_indexes
Revises: 0009_account_secrets
Create Date: 2026-11-23 11:05:00.000000

"""
from guardsvc.storage.migration_ops import create_index_online, drop_index_online


# revision identifiers, used by Alembic.
revision = '0010_queue_indexes'
down_revision = '0009_account_secrets'
branch_labels = None
depends_on = None


def upgrade():
    # Built concurrently: the tickets table keeps taking appeals while it builds.
    create_index_online('ix_unblock_tickets_created_at_id', 'unblock_tickets', ['created_at', 'id'])


def downgrade():
    drop_index_online('ix_unblock_tickets_created_at_id', 'unblock_tickets')
