"""Self-releases (contract section 14): releases, the blocks they released, used proofs, the gate row;
allow entries say what made them; blocks keep their source's own origin name.

allow_entries.made_by ('manual', 'approval', 'self_release') generalises from_approval: every kind but
'manual' yields to the blocks created after it. from_approval stays (expand): new code still writes it,
so a process of the previous version applies the same rule during a rolling upgrade; a later revision
drops it. New tables and plain ADD COLUMNs with constant defaults: nothing existing is rewritten.

Revision ID: 0027_self_releases
Revises: 0026_self_release
Create Date: 2026-11-26 23:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0027_self_releases'
down_revision = '0026_self_release'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('allow_entries', sa.Column('made_by', sa.String(length=16), server_default='manual',
                                             nullable=False))
    # Few rows (approvals' entries): one short UPDATE, under the migration's lock_timeout.
    op.execute("UPDATE allow_entries SET made_by = 'approval' WHERE from_approval")
    op.add_column('blocks', sa.Column('source_origin', sa.String(length=32), nullable=True))
    op.create_table(
        'self_releases',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('allowed_until', sa.DateTime(), nullable=False),
        sa.Column('address_key', sa.String(length=64), nullable=True),
        sa.Column('device_key', sa.String(length=64), nullable=True),
        sa.Column('ip_address', sa.String(length=45), nullable=True),
        sa.Column('allow_entry_id', sa.Integer(), nullable=True),
        sa.Column('reblocked_at', sa.DateTime(), nullable=True),
        sa.Column('reblocked_by', sa.String(length=12), nullable=True),
        sa.ForeignKeyConstraint(['allow_entry_id'], ['allow_entries.id'],
                                name=op.f('fk_self_releases_allow_entry_id_allow_entries'), ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_self_releases')),
    )
    # New, empty tables: a plain CREATE INDEX takes no time and blocks nobody.
    op.create_index('ix_self_releases_address_key_created_at', 'self_releases', ['address_key', 'created_at'])
    op.create_index('ix_self_releases_device_key_created_at', 'self_releases', ['device_key', 'created_at'])
    op.create_index('ix_self_releases_created_at', 'self_releases', ['created_at'])
    op.create_table(
        'self_release_blocks',
        sa.Column('release_id', sa.Integer(), nullable=False),
        sa.Column('block_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['release_id'], ['self_releases.id'],
                                name=op.f('fk_self_release_blocks_release_id_self_releases'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['block_id'], ['blocks.id'], name=op.f('fk_self_release_blocks_block_id_blocks'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('release_id', 'block_id', name=op.f('pk_self_release_blocks')),
    )
    op.create_index('ix_self_release_blocks_block_id', 'self_release_blocks', ['block_id'])
    op.create_table(
        'self_release_proofs',
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('digest', name=op.f('pk_self_release_proofs')),
    )
    op.create_index('ix_self_release_proofs_expires_at', 'self_release_proofs', ['expires_at'])
    op.create_table(
        'self_release_gate',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('passed_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_self_release_gate')),
    )


def downgrade():
    op.drop_table('self_release_gate')
    op.drop_table('self_release_proofs')
    op.drop_table('self_release_blocks')
    op.drop_table('self_releases')
    with op.batch_alter_table('blocks') as batch_op:
        batch_op.drop_column('source_origin')
    with op.batch_alter_table('allow_entries') as batch_op:
        batch_op.drop_column('made_by')
