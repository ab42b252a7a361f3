"""Allow entries: IPs, ranges and devices that outrank blocks.

Revision ID: 0004_allow_entries
Revises: 0003_signin_security
Create Date: 2026-11-23 09:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0004_allow_entries'
down_revision = '0004_device_cooldown'
branch_labels = None
depends_on = None

NOT_REMOVED = sa.text("removed_at IS NULL")


def upgrade():
    op.create_table('allow_entries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('network', sa.String(length=64), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('expires_at', sa.DateTime(), nullable=True),
    sa.Column('removed_at', sa.DateTime(), nullable=True),
    sa.Column('removed_by_id', sa.Integer(), nullable=True),
    sa.CheckConstraint('(network IS NULL) <> (device_id IS NULL)', name=op.f('ck_allow_entries_one_target')),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_allow_entries_created_by_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['removed_by_id'], ['users.id'], name=op.f('fk_allow_entries_removed_by_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_allow_entries'))
    )
    with op.batch_alter_table('allow_entries', schema=None) as batch_op:
        batch_op.create_index('ix_allow_entries_active_device', ['device_id'], unique=False,
                              sqlite_where=NOT_REMOVED, postgresql_where=NOT_REMOVED)
        batch_op.create_index('ix_allow_entries_active_network', ['network'], unique=False,
                              sqlite_where=NOT_REMOVED, postgresql_where=NOT_REMOVED)
        batch_op.create_index('ix_allow_entries_created_at', ['created_at'], unique=False)


def downgrade():
    with op.batch_alter_table('allow_entries', schema=None) as batch_op:
        batch_op.drop_index('ix_allow_entries_created_at')
        batch_op.drop_index('ix_allow_entries_active_network')
        batch_op.drop_index('ix_allow_entries_active_device')

    op.drop_table('allow_entries')
