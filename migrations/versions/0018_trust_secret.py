"""Sign-in trust proven by a service-issued secret; re-authentication that knows the second factor.

- trusted_ips.secret_hash: SHA-256 of the trust secret "Percayai perangkat ini" gave a browser
  (null: host-check trust only, e.g. a bearer token's save-my-ip); trusted_ips.device_issued: the
  record's device id is the service-issued device cookie (shown only as a fingerprint).
- user_sessions.second_factor_at: when this session last passed a second factor.
- login_events.device_cookie_hash: SHA-256 of the service-issued device cookie a sign-in presented,
  so a browser is recognised by what the service gave it, never by a device id a client names.

Revision ID: 0018_trust_secret
Revises: 0017_crowdsec
Create Date: 2026-11-25 04:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0018_trust_secret'
down_revision = '0017_crowdsec'
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMN (nullable, or with a constant default): metadata-only on PostgreSQL, and on
    # SQLite no table copy, which would lose the expression index uq_trusted_ips_user_ip_device.
    op.add_column('trusted_ips', sa.Column('secret_hash', sa.String(length=64), nullable=True))
    op.add_column('trusted_ips', sa.Column('device_issued', sa.Boolean(), server_default=sa.false(),
                                           nullable=False))
    op.add_column('user_sessions', sa.Column('second_factor_at', sa.DateTime(), nullable=True))
    op.add_column('login_events', sa.Column('device_cookie_hash', sa.String(length=64), nullable=True))


def downgrade():
    with op.batch_alter_table('login_events') as batch_op:
        batch_op.drop_column('device_cookie_hash')
    with op.batch_alter_table('user_sessions') as batch_op:
        batch_op.drop_column('second_factor_at')
    with op.batch_alter_table('trusted_ips') as batch_op:
        batch_op.drop_column('device_issued')
        batch_op.drop_column('secret_hash')
    if op.get_bind().dialect.name == 'sqlite':  # the table copy cannot carry an expression index
        op.execute("CREATE UNIQUE INDEX IF NOT EXISTS uq_trusted_ips_user_ip_device "
                   "ON trusted_ips (user_id, ip_address, coalesce(device_id, ''))")
