"""Ticket conversation, claims, reply templates and new-appeal digests.

Revision ID: 0006_conversation
Revises: 0005_sessions
Create Date: 2026-11-23 11:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0006_conversation'
down_revision = '0005_sessions'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.add_column(sa.Column('email_verified_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('claimed_by_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('claimed_at', sa.DateTime(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_unblock_tickets_claimed_by_id_users'), 'users',
                                    ['claimed_by_id'], ['id'], ondelete='SET NULL')

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notify_new_appeals', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
        batch_op.add_column(sa.Column('last_appeal_digest_at', sa.DateTime(), nullable=True))

    op.create_table('ticket_secrets',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('ticket_id', sa.Integer(), nullable=False),
    sa.Column('secret_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['ticket_id'], ['unblock_tickets.id'], name=op.f('fk_ticket_secrets_ticket_id_unblock_tickets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ticket_secrets')),
    sa.UniqueConstraint('secret_hash', name=op.f('uq_ticket_secrets_secret_hash'))
    )
    with op.batch_alter_table('ticket_secrets', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ticket_secrets_ticket_id'), ['ticket_id'], unique=False)

    op.create_table('ticket_messages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('ticket_id', sa.Integer(), nullable=False),
    sa.Column('author_kind', sa.String(length=16), nullable=False),
    sa.Column('author_user_id', sa.Integer(), nullable=True),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint("author_kind IN ('appellant', 'admin', 'note')", name=op.f('ck_ticket_messages_author_kind')),
    sa.ForeignKeyConstraint(['author_user_id'], ['users.id'], name=op.f('fk_ticket_messages_author_user_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['ticket_id'], ['unblock_tickets.id'], name=op.f('fk_ticket_messages_ticket_id_unblock_tickets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ticket_messages'))
    )
    with op.batch_alter_table('ticket_messages', schema=None) as batch_op:
        batch_op.create_index('ix_ticket_messages_ticket_id_created_at', ['ticket_id', 'created_at'], unique=False)

    op.create_table('response_templates',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=100), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_response_templates'))
    )


def downgrade():
    op.drop_table('response_templates')
    with op.batch_alter_table('ticket_messages', schema=None) as batch_op:
        batch_op.drop_index('ix_ticket_messages_ticket_id_created_at')
    op.drop_table('ticket_messages')
    with op.batch_alter_table('ticket_secrets', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_ticket_secrets_ticket_id'))
    op.drop_table('ticket_secrets')

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('last_appeal_digest_at')
        batch_op.drop_column('notify_new_appeals')

    with op.batch_alter_table('unblock_tickets', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_unblock_tickets_claimed_by_id_users'), type_='foreignkey')
        batch_op.drop_column('claimed_at')
        batch_op.drop_column('claimed_by_id')
        batch_op.drop_column('email_verified_at')
