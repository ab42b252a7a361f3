"""CrowdSec: bouncers and the decisions each holds (the stream); blocks imported from a LAPI; deletions to send.

Revision ID: 0017_crowdsec
Revises: 0011_pending_ip_index
Create Date: 2026-11-25 04:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0017_crowdsec'
down_revision = '0011_pending_ip_index'
branch_labels = None
depends_on = None


FROM_ELSEWHERE = sa.text("origin IS NOT NULL")
PENDING = sa.text("confirmed_at IS NULL")


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SET LOCAL statement_timeout = 0")  # the blocks index reads the whole table once
    op.create_table(
        'crowdsec_bouncers',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('key_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('last_pull_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_crowdsec_bouncers')),
        sa.UniqueConstraint('key_hash', name=op.f('uq_crowdsec_bouncers_key_hash')),
        sa.UniqueConstraint('name', name=op.f('uq_crowdsec_bouncers_name')),
    )
    op.create_table(
        'crowdsec_sent_decisions',
        sa.Column('bouncer_id', sa.Integer(), nullable=False),
        sa.Column('decision_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('block_id', sa.Integer(), nullable=False),
        sa.Column('scope', sa.String(length=8), nullable=False),
        sa.Column('value', sa.String(length=64), nullable=False),
        sa.Column('scenario', sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(['bouncer_id'], ['crowdsec_bouncers.id'],
                                name=op.f('fk_crowdsec_sent_decisions_bouncer_id_crowdsec_bouncers'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('bouncer_id', 'decision_id', name=op.f('pk_crowdsec_sent_decisions')),
    )
    op.create_table(
        'crowdsec_decision_deletions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('decision_id', sa.BigInteger(), nullable=False),
        sa.Column('block_reference', sa.String(length=12), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', sa.DateTime(), nullable=False),
        sa.Column('confirmed_at', sa.DateTime(), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_crowdsec_decision_deletions')),
        sa.UniqueConstraint('decision_id', name=op.f('uq_crowdsec_decision_deletions_decision_id')),
    )
    with op.batch_alter_table('crowdsec_decision_deletions', schema=None) as batch_op:
        batch_op.create_index('ix_crowdsec_decision_deletions_due', ['next_attempt_at'], unique=False,
                              sqlite_where=PENDING, postgresql_where=PENDING)
    # Nullable columns without a default: adding them rewrites nothing.
    with op.batch_alter_table('blocks', schema=None) as batch_op:
        batch_op.add_column(sa.Column('origin', sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column('source_decision_id', sa.BigInteger(), nullable=True))
        batch_op.create_index('ix_blocks_source_decision', ['origin', 'source_decision_id', 'network'],
                              unique=True, sqlite_where=FROM_ELSEWHERE, postgresql_where=FROM_ELSEWHERE)


def downgrade():
    with op.batch_alter_table('blocks', schema=None) as batch_op:
        batch_op.drop_index('ix_blocks_source_decision')
        batch_op.drop_column('source_decision_id')
        batch_op.drop_column('origin')
    op.drop_table('crowdsec_decision_deletions')
    op.drop_table('crowdsec_sent_decisions')
    op.drop_table('crowdsec_bouncers')
