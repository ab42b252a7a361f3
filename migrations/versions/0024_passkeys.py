"""Passkeys (WebAuthn credentials) and the challenges of ceremonies in progress.

New tables only: nothing existing is locked or rewritten.

Revision ID: 0024_passkeys
Revises: 0023_webhooks
Create Date: 2026-11-26 13:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0024_passkeys'
down_revision = '0023_webhooks'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'passkeys',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('credential_id', sa.String(length=1400), nullable=False),
        sa.Column('public_key', sa.LargeBinary(), nullable=False),
        sa.Column('user_handle', sa.String(length=100), nullable=False),
        sa.Column('sign_count', sa.BigInteger(), nullable=False),
        sa.Column('transports', sa.String(length=200), nullable=False),
        sa.Column('backed_up', sa.Boolean(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('last_used_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_passkeys_user_id_users'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_passkeys')),
        sa.UniqueConstraint('credential_id', name=op.f('uq_passkeys_credential_id')),
    )
    # New, empty tables: a plain CREATE INDEX takes no time and blocks nobody.
    op.create_index(op.f('ix_passkeys_user_id'), 'passkeys', ['user_id'], unique=False)
    op.create_table(
        'passkey_challenges',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('challenge_hash', sa.String(length=64), nullable=False),
        sa.Column('purpose', sa.String(length=16), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=True),
        sa.Column('user_handle', sa.String(length=100), nullable=True),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.CheckConstraint("purpose IN ('register', 'second_factor', 'passwordless')",
                           name=op.f('ck_passkey_challenges_purpose')),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_passkey_challenges_user_id_users'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_passkey_challenges')),
        sa.UniqueConstraint('challenge_hash', name=op.f('uq_passkey_challenges_challenge_hash')),
    )
    op.create_index(op.f('ix_passkey_challenges_user_id'), 'passkey_challenges', ['user_id'], unique=False)
    op.create_index(op.f('ix_passkey_challenges_expires_at'), 'passkey_challenges', ['expires_at'], unique=False)


def downgrade():
    op.drop_table('passkey_challenges')
    op.drop_table('passkeys')
