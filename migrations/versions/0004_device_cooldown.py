"""Cooldown per device: the one-pending-ticket-per-IP rule only binds clients without a device id.

Revision ID: 0004_device_cooldown
Revises: 0003_signin_security
Create Date: 2026-11-23 09:00:00

Existing data always satisfies the narrower index (it allows a superset of
what the old one allowed), so no row changes.
"""
from alembic import op
import sqlalchemy as sa


revision = '0004_device_cooldown'
down_revision = '0003_signin_security'
branch_labels = None
depends_on = None

INDEX = 'uq_unblock_tickets_pending_ip'
TABLE = 'unblock_tickets'


def _create(where):
    clause = sa.text(where)
    op.create_index(INDEX, TABLE, ['ip_address'], unique=True,
                    sqlite_where=clause, postgresql_where=clause)


def upgrade():
    op.drop_index(INDEX, table_name=TABLE)
    _create("status = 'pending' AND device_id IS NULL")


def downgrade():
    # Before this revision every client of one IP shared one pending ticket; keep the
    # oldest pending ticket per IP pending and let the index be created again.
    op.execute(
        "UPDATE unblock_tickets SET status = 'rejected', admin_notes = 'Ditutup saat pembaruan basis data.' "
        "WHERE status = 'pending' AND id NOT IN (SELECT min(id) FROM unblock_tickets "
        "WHERE status = 'pending' GROUP BY ip_address)")
    op.drop_index(INDEX, table_name=TABLE)
    _create("status = 'pending'")
