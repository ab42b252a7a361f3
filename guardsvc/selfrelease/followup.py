"""Was a released client blocked again? The worker looks, so the desk can say how many were.

A release is "blocked again" when a block created while it was in force (after
the release, before its allow entry ran out) applies to the same address or
device: the new block won over the release (it yields to later blocks). Only
releases that may still meet such a block are looked at, and only when a block
was created since the last look; each is one indexed query, the guard's own.
"""
from datetime import timedelta

from flask import current_app
from sqlalchemy import func, select

from guardsvc.blocks.models import AllowEntry, Block
from guardsvc.blocks.service import blocks_on_client
from guardsvc.extensions import db
from guardsvc.selfrelease.models import SelfRelease
from guardsvc.storage import clock

INTERVAL_SECONDS = 60
_seen = {"newest_block": None}


def mark_blocked_again():
    """Mark the releases a later block caught since the last look; returns how many were marked."""
    newest = db.session.scalar(select(func.max(Block.id)))
    if newest is None or newest == _seen["newest_block"]:
        return 0
    now = clock.utcnow()
    candidates = db.session.execute(
        select(SelfRelease, AllowEntry.paired_device_id).join(AllowEntry, AllowEntry.id == SelfRelease.allow_entry_id)
        .where(SelfRelease.reblocked_at.is_(None), SelfRelease.ip_address.is_not(None),
               SelfRelease.created_at > now - _longest_release())).all()
    marked = 0
    for release, device_id in candidates:
        later = [block for block in blocks_on_client(release.ip_address, device_id)
                 if release.created_at < block.created_at < release.allowed_until]
        if later:
            first = min(later, key=lambda block: (block.created_at, block.id))
            release.reblocked_at, release.reblocked_by = first.created_at, first.reference
            marked += 1
    db.session.commit()
    _seen["newest_block"] = newest
    return marked


def _longest_release():
    # A release runs SELF_RELEASE_HOURS; one made earlier can no longer meet a new block.
    return timedelta(hours=current_app.config["SELF_RELEASE_HOURS"])
