"""Account secrets at rest, and an index to count failed sign-ins by e-mail.

Revision ID: 0009_account_secrets
Revises: 0008_exact_approvals
Create Date: 2026-11-23 11:00:00

TOTP secrets are encrypted with a key derived from SECRET_KEY (guardsvc/storage/sealing.py);
the column widens to hold the encrypted form. Recovery codes stored as a bare
SHA-256 become HMAC-SHA256 of that digest, so every existing code keeps working.
Downgrade decrypts the secrets; it cannot undo a keyed hash, so it deletes the
recovery codes (their owners make new ones on /akun).

SQLite does not enforce VARCHAR lengths, and widening the column there would
mean rebuilding the users table, whose drop cascades through foreign keys:
the type changes on other databases only.
"""
from alembic import op
from flask import current_app
import sqlalchemy as sa

from guardsvc.storage.migration_ops import create_index_online, drop_index_online
from guardsvc.storage.sealing import keyed_digest, seal, unseal


revision = '0009_account_secrets'
down_revision = '0008_exact_approvals'
branch_labels = None
depends_on = None

USERS = sa.table('users', sa.column('id', sa.Integer), sa.column('totp_secret', sa.String))
CODES = sa.table('recovery_codes', sa.column('id', sa.Integer), sa.column('code_hash', sa.String))


def _rewrite(table, column, change):
    if op.get_context().as_sql:
        op.execute(f"-- {table.name}.{column}: each row rewritten by the migration itself (not offline)")
        return
    bind = op.get_bind()
    rows = bind.execute(sa.select(table.c.id, table.c[column]).where(table.c[column].is_not(None))).all()
    for row_id, value in rows:
        bind.execute(table.update().where(table.c.id == row_id).values({column: change(value)}))


def _widen(length_from, length_to):
    if op.get_context().dialect.name != 'sqlite':
        op.alter_column('users', 'totp_secret', type_=sa.String(length_to),
                        existing_type=sa.String(length_from), existing_nullable=True)


def upgrade():
    # Built concurrently: sign-ins keep being recorded while it builds.
    create_index_online('ix_login_events_email_created_at', 'login_events', ['email', 'created_at'])
    _widen(64, 255)
    config = current_app.config
    _rewrite(USERS, 'totp_secret', lambda secret: seal(secret, config))
    _rewrite(CODES, 'code_hash', lambda digest: keyed_digest(digest, config['SECRET_KEY']))


def downgrade():
    config = current_app.config
    _rewrite(USERS, 'totp_secret', lambda sealed: unseal(sealed, config))
    _widen(255, 64)
    op.execute(CODES.delete())
    drop_index_online('ix_login_events_email_created_at', 'login_events')
