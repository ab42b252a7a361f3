"""The language a person reads (contract section 12): e-mails about a ticket or an account go out in it.

unblock_tickets.language: the language of the page the appeal was written on (``id``/``en``).
users.language: the language the account holder last chose or signed in with.
Null: unknown (older rows) — the default language applies.

Revision ID: 0025_languages
Revises: 0024_passkeys
Create Date: 2026-11-26 17:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0025_languages'
down_revision = '0024_passkeys'
branch_labels = None
depends_on = None


def upgrade():
    # Plain nullable ADD COLUMN: no table copy, no rewrite, no long lock on PostgreSQL.
    op.add_column('unblock_tickets', sa.Column('language', sa.String(length=8), nullable=True))
    op.add_column('users', sa.Column('language', sa.String(length=8), nullable=True))


def downgrade():
    with op.batch_alter_table('users') as batch_op:
        batch_op.drop_column('language')
    with op.batch_alter_table('unblock_tickets') as batch_op:
        batch_op.drop_column('language')
