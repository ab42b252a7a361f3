"""Countries of quiet accounts, the first sign-in of each account, and which breached-password list each
serving process answers from.

- signin_countries: the countries each account signed in from successfully, and when it last did, kept
  for the new-country rule's 180 days even when the sign-in history is purged sooner (new table, filled
  from the history there is).
- users.first_signed_in_at: when the account first signed in; null only for an account that never did.
  Filled from the history; an account created before the oldest sign-in the history still holds (or
  with no history left at all) may have signed in before it was purged, so it gets its creation time:
  its next sign-in is not taken for a first one (that would ask for no code and send no alert).
- breached_list_readers: one row per serving process, saying which breached-password filter it answers
  from and whether it can read the file (new table).

Only additions: the previous release's code serves on this schema as before.

Revision ID: 0035_signin_countries
Revises: 0034_desk
Create Date: 2026-11-29 05:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0035_signin_countries'
down_revision = '0034_desk'
branch_labels = None
depends_on = None

SUCCESS = "result IN ('success', '2fa_skipped', '2fa_passed', 'recovery_code_used', 'email_verified')"


def upgrade():
    # Plain nullable ADD COLUMN: no rewrite, no long lock on PostgreSQL.
    op.add_column('users', sa.Column('first_signed_in_at', sa.DateTime(), nullable=True))
    op.create_table(
        'signin_countries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('country', sa.String(length=2), nullable=False),
        sa.Column('last_signed_in_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_signin_countries_user_id_users'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_signin_countries')),
    )
    # A new, empty table: a plain CREATE INDEX takes no time and blocks nobody.
    op.create_index('uq_signin_countries_user_id_country', 'signin_countries', ['user_id', 'country'], unique=True)
    op.create_index('ix_signin_countries_last_signed_in_at', 'signin_countries', ['last_signed_in_at'])
    op.create_table(
        'breached_list_readers',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('process', sa.String(length=160), nullable=False),
        sa.Column('host', sa.String(length=128), nullable=False),
        sa.Column('pid', sa.Integer(), nullable=False),
        sa.Column('path', sa.String(length=1000), nullable=False),
        sa.Column('state', sa.String(length=12), nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=True),
        sa.Column('loaded_at', sa.DateTime(), nullable=True),
        sa.Column('problem', sa.String(length=1500), nullable=True),
        sa.Column('reported_at', sa.DateTime(), nullable=False),
        sa.CheckConstraint("state IN ('none', 'loaded', 'kept', 'unreadable')",
                           name=op.f('ck_breached_list_readers_state')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_breached_list_readers')),
        sa.UniqueConstraint('process', name=op.f('uq_breached_list_readers_process')),
    )
    # What the history knows, in three statements (the accounts table is small; the history is read
    # through its (user_id, created_at) index).
    op.execute(
        "INSERT INTO signin_countries (user_id, country, last_signed_in_at) "
        "SELECT user_id, country, MAX(created_at) FROM login_events "
        f"WHERE user_id IS NOT NULL AND country IS NOT NULL AND {SUCCESS} GROUP BY user_id, country")
    op.execute(
        "UPDATE users SET first_signed_in_at = (SELECT MIN(created_at) FROM login_events "
        f"WHERE login_events.user_id = users.id AND {SUCCESS}) WHERE first_signed_in_at IS NULL")
    op.execute(
        "UPDATE users SET first_signed_in_at = created_at WHERE first_signed_in_at IS NULL "
        "AND NOT EXISTS (SELECT 1 FROM login_events WHERE login_events.created_at <= users.created_at)")


def downgrade():
    op.drop_table('breached_list_readers')
    op.drop_table('signin_countries')
    with op.batch_alter_table('users') as batch_op:
        batch_op.drop_column('first_signed_in_at')
