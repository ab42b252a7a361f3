"""Blocks a visitor may release by a proof of work (contract section 14).

blocks.self_release: true when the person under the block may free themselves (a low-risk block:
asked for by whoever made it, or a CrowdSec decision from a community or third-party list).

Revision ID: 0026_self_release
Revises: 0025_languages
Create Date: 2026-11-26 22:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0026_self_release'
down_revision = '0025_languages'
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMN with a constant default: no table copy, no rewrite.
    op.add_column('blocks', sa.Column('self_release', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade():
    with op.batch_alter_table('blocks') as batch_op:
        batch_op.drop_column('self_release')
