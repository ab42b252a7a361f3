"""Webhooks: endpoints (secrets sealed) and the queue of outward calls (webhook deliveries, fail2ban unbans).

New tables only: nothing existing is locked or rewritten.

Revision ID: 0023_webhooks
Revises: 0022_ticket_origin
Create Date: 2026-11-26 12:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0023_webhooks'
down_revision = '0022_ticket_origin'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'webhook_endpoints',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('url', sa.String(length=2000), nullable=False),
        sa.Column('events', sa.String(length=255), nullable=False),
        sa.Column('secret', sa.String(length=255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('disabled', sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_endpoints')),
    )
    op.create_table(
        'webhook_deliveries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('endpoint_id', sa.Integer(), nullable=True),
        sa.Column('event_id', sa.String(length=40), nullable=False),
        sa.Column('event_type', sa.String(length=32), nullable=False),
        sa.Column('body', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', sa.DateTime(), nullable=False),
        sa.Column('claim_token', sa.String(length=32), nullable=True),
        sa.Column('claimed_until', sa.DateTime(), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('delivered_at', sa.DateTime(), nullable=True),
        sa.CheckConstraint("status IN ('pending', 'sending', 'delivered', 'failed')",
                           name=op.f('ck_webhook_deliveries_status')),
        sa.ForeignKeyConstraint(['endpoint_id'], ['webhook_endpoints.id'],
                                name=op.f('fk_webhook_deliveries_endpoint_id_webhook_endpoints'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_deliveries')),
        sa.UniqueConstraint('endpoint_id', 'event_id', name=op.f('uq_webhook_deliveries_endpoint_id_event_id')),
    )
    # A new, empty table: a plain CREATE INDEX takes no time and blocks nobody.
    op.create_index('ix_webhook_deliveries_status_next_attempt_at', 'webhook_deliveries',
                    ['status', 'next_attempt_at'], unique=False)


def downgrade():
    op.drop_table('webhook_deliveries')
    op.drop_table('webhook_endpoints')
