"""Which site a ticket came from and the page its appellant wanted, for "back to the page you wanted".

unblock_tickets.site: the host of the guarded site the appeal form was opened on.
unblock_tickets.return_path: the same-host path the visitor asked for when a proxy stopped them
(personal data: erased with the rest after the retention period).

Revision ID: 0022_ticket_origin
Revises: 0021_device_labels
Create Date: 2026-11-26 12:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0022_ticket_origin'
down_revision = '0021_device_labels'
branch_labels = None
depends_on = None


def upgrade():
    # Plain nullable ADD COLUMN: no table copy, no rewrite, no long lock on PostgreSQL.
    op.add_column('unblock_tickets', sa.Column('site', sa.String(length=255), nullable=True))
    op.add_column('unblock_tickets', sa.Column('return_path', sa.String(length=1000), nullable=True))


def downgrade():
    with op.batch_alter_table('unblock_tickets') as batch_op:
        batch_op.drop_column('return_path')
        batch_op.drop_column('site')
