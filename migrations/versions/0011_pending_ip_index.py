"""Pending tickets by address: the per-address ceiling counts them from an index of pending rows only.

Revision ID: 0011_pending_ip_index
Revises: 0010_queue_indexes
Create Date: 2026-11-23 14:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0011_pending_ip_index'
down_revision = '0010_queue_indexes'
branch_labels = None
depends_on = None

PENDING = sa.text("status = 'pending'")


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SET LOCAL statement_timeout = 0")  # building an index on a large table may take a while
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.create_index('ix_unblock_tickets_pending_ip_address', ['ip_address'], unique=False,
                              sqlite_where=PENDING, postgresql_where=PENDING)


def downgrade():
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.drop_index('ix_unblock_tickets_pending_ip_address')
