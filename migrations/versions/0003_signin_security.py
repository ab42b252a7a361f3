"""Sign-in security: login history, recovery codes, mail outbox.

Revision ID: 0003_signin_security
Revises: 0002_blocks_admin
Create Date: 2026-11-22 09:14:49.419575

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0003_signin_security'
down_revision = '0002_blocks_admin'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('mail_outbox',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('recipient', sa.String(length=254), nullable=False),
    sa.Column('subject', sa.String(length=255), nullable=False),
    sa.Column('body_text', sa.Text(), nullable=False),
    sa.Column('body_html', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(), nullable=False),
    sa.Column('claim_token', sa.String(length=32), nullable=True),
    sa.Column('claimed_until', sa.DateTime(), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('sent_at', sa.DateTime(), nullable=True),
    sa.CheckConstraint("status IN ('pending', 'sending', 'sent', 'failed')", name=op.f('ck_mail_outbox_status')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mail_outbox'))
    )
    with op.batch_alter_table('mail_outbox', schema=None) as batch_op:
        batch_op.create_index('ix_mail_outbox_status_next_attempt_at', ['status', 'next_attempt_at'], unique=False)

    op.create_table('login_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('email', sa.String(length=150), nullable=False),
    sa.Column('ip_address', sa.String(length=45), nullable=False),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('user_agent', sa.String(length=255), nullable=True),
    sa.Column('result', sa.String(length=24), nullable=False),
    sa.Column('alerted', sa.Boolean(), nullable=False),
    sa.CheckConstraint("result IN ('success', '2fa_skipped', '2fa_passed', 'recovery_code_used', 'wrong_password', 'code_required', 'wrong_code', 'locked', 'not_allowed')", name=op.f('ck_login_events_result')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_login_events_user_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_events'))
    )
    with op.batch_alter_table('login_events', schema=None) as batch_op:
        batch_op.create_index('ix_login_events_created_at', ['created_at'], unique=False)
        batch_op.create_index('ix_login_events_user_id_created_at', ['user_id', 'created_at'], unique=False)

    op.create_table('recovery_codes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('used_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_recovery_codes_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_recovery_codes')),
    sa.UniqueConstraint('code_hash', name=op.f('uq_recovery_codes_code_hash'))
    )
    with op.batch_alter_table('recovery_codes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_recovery_codes_user_id'), ['user_id'], unique=False)



def downgrade():
    with op.batch_alter_table('recovery_codes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_recovery_codes_user_id'))

    op.drop_table('recovery_codes')
    with op.batch_alter_table('login_events', schema=None) as batch_op:
        batch_op.drop_index('ix_login_events_user_id_created_at')
        batch_op.drop_index('ix_login_events_created_at')

    op.drop_table('login_events')
    with op.batch_alter_table('mail_outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_mail_outbox_status_next_attempt_at')

    op.drop_table('mail_outbox')
