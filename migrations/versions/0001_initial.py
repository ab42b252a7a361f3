"""Initial schema: users, tokens, trusted IPs, blocks, unblock tickets.

Revision ID: 0001_initial
Revises: 
Create Date: 2026-11-22 09:09:32.981215

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('users',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('email', sa.String(length=150), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('password_hash', sa.String(length=255), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('is_active', sa.Boolean(), nullable=False),
    sa.Column('session_epoch', sa.Integer(), nullable=False),
    sa.Column('totp_secret', sa.String(length=64), nullable=True),
    sa.Column('totp_enabled_at', sa.DateTime(), nullable=True),
    sa.Column('totp_last_step', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint("role IN ('user', 'admin', 'service')", name=op.f('ck_users_role')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('email', name=op.f('uq_users_email'))
    )
    op.create_table('api_tokens',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('prefix', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('last_used_at', sa.DateTime(), nullable=True),
    sa.Column('revoked_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_api_tokens_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_tokens')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_api_tokens_token_hash'))
    )
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_api_tokens_user_id'), ['user_id'], unique=False)

    op.create_table('blocks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('reference', sa.String(length=12), nullable=False),
    sa.Column('network', sa.String(length=64), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('local_ip', sa.String(length=45), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('expires_at', sa.DateTime(), nullable=True),
    sa.Column('lifted_at', sa.DateTime(), nullable=True),
    sa.Column('lifted_by_id', sa.Integer(), nullable=True),
    sa.Column('lift_reason', sa.Text(), nullable=True),
    sa.CheckConstraint('(network IS NULL) <> (device_id IS NULL)', name=op.f('ck_blocks_one_target')),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_blocks_created_by_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['lifted_by_id'], ['users.id'], name=op.f('fk_blocks_lifted_by_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blocks')),
    sa.UniqueConstraint('reference', name=op.f('uq_blocks_reference'))
    )
    with op.batch_alter_table('blocks', schema=None) as batch_op:
        batch_op.create_index('ix_blocks_active_device', ['device_id'], unique=False, sqlite_where=sa.text('lifted_at IS NULL'), postgresql_where=sa.text('lifted_at IS NULL'))
        batch_op.create_index('ix_blocks_active_network', ['network'], unique=False, sqlite_where=sa.text('lifted_at IS NULL'), postgresql_where=sa.text('lifted_at IS NULL'))
        batch_op.create_index('ix_blocks_created_at', ['created_at'], unique=False)

    op.create_table('trusted_ips',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('ip_address', sa.String(length=45), nullable=False),
    sa.Column('local_ip', sa.String(length=45), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_name', sa.String(length=100), nullable=False),
    sa.Column('operating_system', sa.String(length=255), nullable=True),
    sa.Column('is_active', sa.Boolean(), nullable=False),
    sa.Column('verified_at', sa.DateTime(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('revoked_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_trusted_ips_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_trusted_ips'))
    )
    with op.batch_alter_table('trusted_ips', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_trusted_ips_user_id'), ['user_id'], unique=False)
    # One record per (user, ip, device); a missing device id equals a missing device id.
    op.create_index('uq_trusted_ips_user_ip_device', 'trusted_ips',
                    ['user_id', 'ip_address', sa.text("coalesce(device_id, '')")], unique=True)

    op.create_table('unblock_tickets',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('ticket_number', sa.String(length=12), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('email', sa.String(length=150), nullable=False),
    sa.Column('phone', sa.String(length=30), nullable=True),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('ip_address', sa.String(length=45), nullable=False),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('local_ip', sa.String(length=45), nullable=True),
    sa.Column('user_agent', sa.String(length=255), nullable=True),
    sa.Column('block_id', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('resolved_at', sa.DateTime(), nullable=True),
    sa.Column('resolved_by_id', sa.Integer(), nullable=True),
    sa.Column('admin_notes', sa.Text(), nullable=True),
    sa.CheckConstraint("status IN ('pending', 'approved', 'rejected')", name=op.f('ck_unblock_tickets_status')),
    sa.ForeignKeyConstraint(['block_id'], ['blocks.id'], name=op.f('fk_unblock_tickets_block_id_blocks'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['resolved_by_id'], ['users.id'], name=op.f('fk_unblock_tickets_resolved_by_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_unblock_tickets')),
    sa.UniqueConstraint('ticket_number', name=op.f('uq_unblock_tickets_ticket_number'))
    )
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.create_index('ix_unblock_tickets_device_id', ['device_id'], unique=False)
        batch_op.create_index('ix_unblock_tickets_ip_address', ['ip_address'], unique=False)
        batch_op.create_index('ix_unblock_tickets_status_created_at', ['status', 'created_at'], unique=False)
        batch_op.create_index('uq_unblock_tickets_pending_device', ['device_id'], unique=True, sqlite_where=sa.text("status = 'pending' AND device_id IS NOT NULL"), postgresql_where=sa.text("status = 'pending' AND device_id IS NOT NULL"))
        batch_op.create_index('uq_unblock_tickets_pending_ip', ['ip_address'], unique=True, sqlite_where=sa.text("status = 'pending'"), postgresql_where=sa.text("status = 'pending'"))



def downgrade():
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.drop_index('uq_unblock_tickets_pending_ip', sqlite_where=sa.text("status = 'pending'"), postgresql_where=sa.text("status = 'pending'"))
        batch_op.drop_index('uq_unblock_tickets_pending_device', sqlite_where=sa.text("status = 'pending' AND device_id IS NOT NULL"), postgresql_where=sa.text("status = 'pending' AND device_id IS NOT NULL"))
        batch_op.drop_index('ix_unblock_tickets_status_created_at')
        batch_op.drop_index('ix_unblock_tickets_ip_address')
        batch_op.drop_index('ix_unblock_tickets_device_id')

    op.drop_table('unblock_tickets')
    with op.batch_alter_table('trusted_ips', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_trusted_ips_user_id'))

    op.drop_index('uq_trusted_ips_user_ip_device', table_name='trusted_ips')
    op.drop_table('trusted_ips')
    with op.batch_alter_table('blocks', schema=None) as batch_op:
        batch_op.drop_index('ix_blocks_created_at')
        batch_op.drop_index('ix_blocks_active_network', sqlite_where=sa.text('lifted_at IS NULL'), postgresql_where=sa.text('lifted_at IS NULL'))
        batch_op.drop_index('ix_blocks_active_device', sqlite_where=sa.text('lifted_at IS NULL'), postgresql_where=sa.text('lifted_at IS NULL'))

    op.drop_table('blocks')
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_api_tokens_user_id'))

    op.drop_table('api_tokens')
    op.drop_table('users')
