"""Blocks imported from another system's decisions (a CrowdSec LAPI): created once per decision, found, lifted.

A decision is named by its origin, its id there and its network; a unique
partial index holds that, so two pullers that import one decision at once
store one block.
"""
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from guardsvc.audit.service import record_event
from guardsvc.blocks.models import Block, target_kind
from guardsvc.blocks.service import active_condition, create_block, lift_blocks
from guardsvc.extensions import db
from guardsvc.storage import clock


def find_imported_block(origin, decision_id, network):
    """The block (in any state) imported from this decision, or None."""
    return db.session.scalar(select(Block).where(
        Block.origin == origin, Block.source_decision_id == decision_id, Block.network == network))


def imported_decisions(origin, decision_ids):
    """``{(decision id, network)}`` of the blocks (in any state) imported from these decisions of ``origin``."""
    found, ids = set(), sorted(set(decision_ids))
    for start in range(0, len(ids), 1000):
        found.update((decision_id, network) for decision_id, network in db.session.execute(
            select(Block.source_decision_id, Block.network).where(
                Block.origin == origin, Block.source_decision_id.in_(ids[start:start + 1000]))))
    return found


def import_block(origin, decision_id, network, expires_at, reason, *, source_origin=None, self_release=False):
    """A block for this decision, unless one was imported before (then None, whatever its state now).

    ``source_origin`` is where the other system says its decision came from; ``self_release``
    marks a block the person under it may release (contract section 14).

    A block lifted in guardsvc is not brought back while its decision lives
    on: the lift stands.
    """
    if find_imported_block(origin, decision_id, network) is not None:
        return None
    try:
        with db.session.begin_nested():  # a concurrent import of the same decision may win
            return create_block(network=network, expires_at=expires_at, reason=reason, origin=origin,
                                source_decision_id=decision_id, source_origin=source_origin,
                                self_release=self_release)
    except IntegrityError:
        if find_imported_block(origin, decision_id, network) is None:
            raise
        return None


def active_imported_blocks(origin):
    """Every active block imported from ``origin``."""
    return db.session.scalars(select(Block).where(Block.origin == origin, active_condition(clock.utcnow()))
                              .order_by(Block.id)).all()


def lift_imported_blocks(blocks, reason):
    """Lift these blocks because their decisions ended there; audited; returns those this call lifted."""
    lifted = lift_blocks(blocks, reason=reason)
    for block in lifted:
        record_event("block.lifted", block.reference, details={"kind": target_kind(block), "reason": reason,
                                                               "origin": block.origin})
    return lifted
