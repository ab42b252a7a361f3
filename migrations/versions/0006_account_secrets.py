"""Account secrets: an index to count failed sign-ins by e-mail.

Revision ID: 0006_account_secrets
Revises: 0004_allow_entries
Create Date: 2026-11-23 11:00:00

"""
from alembic import op


revision = '0006_account_secrets'
down_revision = '0004_allow_entries'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('login_events') as batch:
        batch.create_index('ix_login_events_email_created_at', ['email', 'created_at'])


def downgrade():
    with op.batch_alter_table('login_events') as batch:
        batch.drop_index('ix_login_events_email_created_at')
