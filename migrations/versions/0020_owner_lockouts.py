"""Lockouts that spare the owner: failures of a known browser counted apart; a reset clears counters.

- login_events.known_browser: the attempt came from a browser the account knows (the trust secret
  or the device cookie of an earlier successful sign-in); its failures count for that browser alone.
- users.failures_cleared_at: failures before this moment no longer count (a completed reset).

Revision ID: 0020_owner_lockouts
Revises: 0019_exact_allows
Create Date: 2026-11-25 05:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0020_owner_lockouts'
down_revision = '0019_exact_allows'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('login_events', sa.Column('known_browser', sa.Boolean(), server_default=sa.false(),
                                            nullable=False))
    op.add_column('users', sa.Column('failures_cleared_at', sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table('users') as batch_op:
        batch_op.drop_column('failures_cleared_at')
    with op.batch_alter_table('login_events') as batch_op:
        batch_op.drop_column('known_browser')
