"""What the administrator's desk shows of self-release: releases per block and per source, and how many of
those clients were blocked again while released (``followup.mark_blocked_again``)."""
from datetime import timedelta

from sqlalchemy import case, func, select

from guardsvc.blocks.models import Block
from guardsvc.extensions import db
from guardsvc.selfrelease.models import ReleasedBlock, SelfRelease
from guardsvc.storage import clock

GUARDSVC_SOURCE = "guardsvc"


def _counted(*columns):
    """(columns..., releases, blocked again, releases in the last 24 hours) over releases joined to their blocks."""
    recent = case((SelfRelease.created_at > clock.utcnow() - timedelta(hours=24), 1), else_=0)
    return (select(*columns, func.count(), func.count(SelfRelease.reblocked_at), func.coalesce(func.sum(recent), 0))
            .select_from(ReleasedBlock).join(SelfRelease, SelfRelease.id == ReleasedBlock.release_id))


def per_block(block_ids):
    """``{block id: (releases, blocked again)}`` for these blocks (those never released are absent)."""
    if not block_ids:
        return {}
    rows = db.session.execute(_counted(ReleasedBlock.block_id).where(ReleasedBlock.block_id.in_(block_ids))
                              .group_by(ReleasedBlock.block_id))
    return {row[0]: (row[1], row[2]) for row in rows}


def per_source():
    """``[(source, releases, blocked again, last 24 hours)]``, most releases first.

    The source is where the released block came from: ``guardsvc`` (made here), or another system and its
    own origin name (``crowdsec/CAPI``, ``crowdsec/lists``).
    """
    rows = db.session.execute(_counted(Block.origin, Block.source_origin)
                              .join(Block, Block.id == ReleasedBlock.block_id)
                              .group_by(Block.origin, Block.source_origin)).all()
    named = [("/".join(filter(None, (origin or GUARDSVC_SOURCE, source_origin))), released, again, recent)
             for origin, source_origin, released, again, recent in rows]
    return sorted(named, key=lambda row: (-row[1], row[0]))


def top_blocks(limit=20):
    """``[(block, releases, blocked again, last 24 hours)]``: the blocks released most often."""
    rows = db.session.execute(_counted(ReleasedBlock.block_id).group_by(ReleasedBlock.block_id)
                              .order_by(func.count().desc(), ReleasedBlock.block_id).limit(limit)).all()
    blocks = {block.id: block for block in db.session.scalars(
        select(Block).where(Block.id.in_([row[0] for row in rows])))}
    return [(blocks[block_id], released, again, recent) for block_id, released, again, recent in rows]
