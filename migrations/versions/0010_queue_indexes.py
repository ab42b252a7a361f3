"""Queue indexes: the newest tickets first, without sorting the whole table.

Revision ID: 0010_queue_indexes
Revises: 0009_account_secrets
Create Date: 2026-11-23 11:05:00.000000

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0010_queue_indexes'
down_revision = '0009_account_secrets'
branch_labels = None
depends_on = None


def _no_statement_timeout():
    # guardsvc bounds every statement (GUARDSVC_DATABASE_STATEMENT_TIMEOUT_SECONDS);
    # building an index on a large table may take longer, and that is fine here.
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SET LOCAL statement_timeout = 0")


def upgrade():
    _no_statement_timeout()
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.create_index('ix_unblock_tickets_created_at_id', ['created_at', 'id'], unique=False)


def downgrade():
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.drop_index('ix_unblock_tickets_created_at_id')
