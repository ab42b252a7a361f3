"""The desk meets a wave: tickets grouped by their block, and the desk's service levels.

- unblock_tickets.first_answered_at: when an administrator first answered (a decision, or a message
  to the appellant). Filled in for the tickets already there: the first administrator message before
  the decision, else the decision's time.
- blocks.imported_from: the blocklist a block was imported from (``flask blocks import``), so the
  desk can name a group's source. Blocks imported before this revision keep it empty (their reason
  still names the list).
- ix_unblock_tickets_pending_block: pending tickets by block, oldest first in each (the groups).
- ix_unblock_tickets_resolved_at: the tickets decided in the last days (the median time to decision).

Plain nullable ADD COLUMNs (no rewrite, no long lock) and indexes built concurrently. Compatible with
the previous release's code: it only adds.

Revision ID: 0034_desk
Revises: 0033_nodes
Create Date: 2026-11-29 04:30:00.000000

"""
from alembic import op
import sqlalchemy as sa

from guardsvc.storage.migration_ops import create_index_online, drop_index_online


# revision identifiers, used by Alembic.
revision = '0034_desk'
down_revision = '0033_nodes'
branch_labels = None
depends_on = None

# Decided tickets and those an administrator wrote to: one UPDATE over the tickets table (its rows
# are not read by a request's lock: submissions insert, decisions touch pending rows only, and the
# pending rows this changes are the few with an administrator's message).
BACKFILL_FIRST_ANSWER = """
UPDATE unblock_tickets SET first_answered_at = COALESCE(
    (SELECT min(m.created_at) FROM ticket_messages m
      WHERE m.ticket_id = unblock_tickets.id AND m.author_kind = 'admin'
        AND (unblock_tickets.resolved_at IS NULL OR m.created_at < unblock_tickets.resolved_at)),
    resolved_at)
WHERE first_answered_at IS NULL
  AND (resolved_at IS NOT NULL OR EXISTS (SELECT 1 FROM ticket_messages m
                                           WHERE m.ticket_id = unblock_tickets.id AND m.author_kind = 'admin'))
"""


def upgrade():
    # The indexes first, each built concurrently in a step of its own (a step that failed is done again by
    # running the upgrade again); then the columns and their backfill in the revision's one transaction.
    create_index_online('ix_unblock_tickets_pending_block', 'unblock_tickets', ['block_id', 'created_at'],
                        where=sa.text("status = 'pending'"))
    create_index_online('ix_unblock_tickets_resolved_at', 'unblock_tickets', ['resolved_at'])
    op.add_column('unblock_tickets', sa.Column('first_answered_at', sa.DateTime(), nullable=True))
    op.add_column('blocks', sa.Column('imported_from', sa.String(length=100), nullable=True))
    op.execute(BACKFILL_FIRST_ANSWER)


def downgrade():
    drop_index_online('ix_unblock_tickets_resolved_at', 'unblock_tickets')
    drop_index_online('ix_unblock_tickets_pending_block', 'unblock_tickets')
    with op.batch_alter_table('blocks') as batch_op:
        batch_op.drop_column('imported_from')
    with op.batch_alter_table('unblock_tickets') as batch_op:
        batch_op.drop_column('first_answered_at')
