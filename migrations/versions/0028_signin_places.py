"""Where sign-ins come from, and e-mailed sign-in codes.

- login_events.country, login_events.city: where the address was (GeoIP), for the history and the rules.
- login_events.result also takes email_code_required, wrong_email_code and email_verified.
- signin_email_codes: the codes e-mailed when a password sign-in comes from a new country (new table).

Revision ID: 0028_signin_places
Revises: 0027_self_releases
Create Date: 2026-11-26 22:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0028_signin_places'
down_revision = '0027_self_releases'
branch_labels = None
depends_on = None

OLD_RESULTS = ('success', '2fa_skipped', '2fa_passed', 'recovery_code_used', 'wrong_password', 'code_required',
               'wrong_code', 'locked', 'not_allowed')
NEW_RESULTS = OLD_RESULTS + ('email_verified', 'email_code_required', 'wrong_email_code')
RESULT_CHECK = 'ck_login_events_result'


def _result_check(results):
    return "result IN (" + ", ".join(f"'{result}'" for result in results) + ")"


def _replace_result_check(results):
    """Swap the check of login_events.result without holding the table while rows are checked."""
    if op.get_context().dialect.name != 'postgresql':
        # SQLite cannot alter a constraint: the table is copied (one writer at a time anyway).
        with op.batch_alter_table('login_events', recreate='always') as batch_op:
            batch_op.drop_constraint(op.f(RESULT_CHECK), type_='check')
            batch_op.create_check_constraint(op.f(RESULT_CHECK), sa.text(_result_check(results)))
        return
    # Dropping and adding NOT VALID take the table's lock for a moment only (under lock_timeout). The
    # new check binds every row written from now on; the rows already there are not scanned: the old
    # check held them to a subset of the new results (a downgrade first deletes the rows it would
    # not allow). A VALIDATE in this transaction would scan the whole history under that lock, and
    # one in a transaction of its own would leave a half-done migration behind if it were interrupted.
    op.execute(f'ALTER TABLE login_events DROP CONSTRAINT {RESULT_CHECK}')
    op.execute(f'ALTER TABLE login_events ADD CONSTRAINT {RESULT_CHECK} CHECK ({_result_check(results)}) NOT VALID')


def upgrade():
    # Plain nullable ADD COLUMN: no table copy, no rewrite, no long lock on PostgreSQL.
    op.add_column('login_events', sa.Column('country', sa.String(length=2), nullable=True))
    op.add_column('login_events', sa.Column('city', sa.String(length=100), nullable=True))
    _replace_result_check(NEW_RESULTS)
    op.create_table(
        'signin_email_codes',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('ip_address', sa.String(length=45), nullable=False),
        sa.Column('code_hash', sa.String(length=64), nullable=False),
        sa.Column('state', sa.String(length=8), nullable=False),
        sa.Column('reason', sa.String(length=16), nullable=False),
        sa.Column('tries', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.Column('used_at', sa.DateTime(), nullable=True),
        sa.Column('country', sa.String(length=2), nullable=True),
        sa.Column('city', sa.String(length=100), nullable=True),
        sa.Column('mail_id', sa.Integer(), nullable=True),
        sa.CheckConstraint("state IN ('pending', 'used', 'spent', 'expired', 'replaced')",
                           name=op.f('ck_signin_email_codes_state')),
        sa.CheckConstraint("reason IN ('new_country', 'fast_travel')", name=op.f('ck_signin_email_codes_reason')),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_signin_email_codes_user_id_users'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_signin_email_codes')),
    )
    # A new, empty table: a plain CREATE INDEX takes no time and blocks nobody.
    op.create_index(op.f('ix_signin_email_codes_user_id'), 'signin_email_codes', ['user_id'], unique=False)
    op.create_index('ix_signin_email_codes_created_at', 'signin_email_codes', ['created_at'], unique=False)
    op.create_index('uq_signin_email_codes_pending', 'signin_email_codes', ['user_id', 'ip_address'], unique=True,
                    sqlite_where=sa.text("state = 'pending'"), postgresql_where=sa.text("state = 'pending'"))


def downgrade():
    op.drop_table('signin_email_codes')
    op.execute(sa.text("DELETE FROM login_events WHERE result IN ('email_verified', 'email_code_required', "
                       "'wrong_email_code')"))
    _replace_result_check(OLD_RESULTS)
    with op.batch_alter_table('login_events') as batch_op:
        batch_op.drop_column('city')
        batch_op.drop_column('country')
