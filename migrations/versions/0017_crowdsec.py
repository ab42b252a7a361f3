"""CrowdSec bouncers and, per bouncer, the decisions it holds (its place in the decision stream).

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


def upgrade():
    # New tables only: nothing existing is locked or rewritten.
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


def downgrade():
    op.drop_table('crowdsec_sent_decisions')
    op.drop_table('crowdsec_bouncers')
