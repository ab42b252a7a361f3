"""Exact approvals and retention: what an approval opened, and tickets whose personal data is erased.

Revision ID: 0008_exact_approvals
Revises: 0007_password_resets
Create Date: 2026-11-23 11:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0008_exact_approvals'
down_revision = '0007_password_resets'
branch_labels = None
depends_on = None

# Erased after the retention period, so they may be null from then on.
ERASABLE = (
    ('name', sa.String(length=100)),
    ('email', sa.String(length=150)),
    ('reason', sa.Text()),
    ('ip_address', sa.String(length=45)),
)


def upgrade():
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.add_column(sa.Column('access_opened', sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column('personal_data_erased_at', sa.DateTime(), nullable=True))
        for name, type_ in ERASABLE:
            batch_op.alter_column(name, existing_type=type_, nullable=True)


def downgrade():
    # Erased tickets cannot take back their data: they keep a neutral placeholder.
    tickets = sa.table('unblock_tickets', *(sa.column(name, type_) for name, type_ in ERASABLE))
    for name, type_ in ERASABLE:
        placeholder = '0.0.0.0' if name == 'ip_address' else '-'
        op.execute(tickets.update().where(tickets.c[name].is_(None)).values({name: placeholder}))
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        for name, type_ in ERASABLE:
            batch_op.alter_column(name, existing_type=type_, nullable=False)
        batch_op.drop_column('personal_data_erased_at')
        batch_op.drop_column('access_opened')
