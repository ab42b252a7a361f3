"""Exact, temporary approvals: an approval's allow entry pairs the ticket's address with its device
and yields to blocks created after it.

Revision ID: 0019_exact_allows
Revises: 0018_trust_secret
Create Date: 2026-11-25 04:50:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0019_exact_allows'
down_revision = '0018_trust_secret'
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMN: metadata-only on PostgreSQL, no table copy on SQLite (partial indexes kept).
    op.add_column('allow_entries', sa.Column('paired_device_id', sa.String(length=64), nullable=True))
    op.add_column('allow_entries', sa.Column('from_approval', sa.Boolean(), server_default=sa.false(),
                                             nullable=False))
    # Entries approvals made before: from now on they too yield to blocks created after them.
    op.execute("UPDATE allow_entries SET from_approval = true WHERE reason LIKE 'Banding TKT-% disetujui'")


def downgrade():
    with op.batch_alter_table('allow_entries') as batch_op:
        batch_op.drop_column('from_approval')
        batch_op.drop_column('paired_device_id')
