"""Where a device id came from, so the service-issued device cookie is shown only as a fingerprint.

unblock_tickets, blocks and allow_entries: device_issued is true when the device id is the device
cookie the service gave a browser (a secret), false when a client named it in X-Device-Id.

Revision ID: 0021_device_labels
Revises: 0020_owner_lockouts
Create Date: 2026-11-25 05:05:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0021_device_labels'
down_revision = '0020_owner_lockouts'
branch_labels = None
depends_on = None

TABLES = ('unblock_tickets', 'blocks', 'allow_entries')


def upgrade():
    for table in TABLES:  # plain ADD COLUMN with a constant default: no table copy, no rewrite
        op.add_column(table, sa.Column('device_issued', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade():
    for table in TABLES:
        with op.batch_alter_table(table) as batch_op:
            batch_op.drop_column('device_issued')
