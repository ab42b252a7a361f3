"""Blocks: creating, finding the one a client is under, lifting, listing."""
from datetime import timedelta

from sqlalchemy import and_, or_, select, update

from guardsvc import clock, codes, messages
from guardsvc.audit.service import record_event
from guardsvc.blocks.models import Block
from guardsvc.blocks.networks import candidate_networks, canonical_network
from guardsvc.errors import InvalidState, NotFound, ValidationFailed
from guardsvc.extensions import db
from guardsvc.listing import contains_text, paginate

__all__ = ["canonical_network", "candidate_networks"]  # kept importable from here

REFERENCE_PREFIX = "BLK"


def active_condition(now):
    """SQL: the block applies at ``now`` (not lifted, not expired).

    Expiry lives in the query, so an expired block stops applying the moment
    it expires, with no job to run and nothing to invalidate.
    """
    return and_(Block.lifted_at.is_(None), or_(Block.expires_at.is_(None), Block.expires_at > now))


def _target_filter(ip_address, device_id):
    targets = []
    if ip_address:
        targets.append(Block.network.in_(candidate_networks(ip_address)))
    if device_id:
        targets.append(Block.device_id == device_id)
    return or_(*targets) if targets else None


def active_blocks_query(ip_address=None, device_id=None, local_ip=None, *, any_local_ip=False):
    """Blocks that apply now to a client with this IP, device id and local IP.

    The target test is an equality/IN on the partial indexes of blocks that are
    not lifted, so its cost does not depend on how many blocks exist.
    ``any_local_ip`` ignores local-IP narrowing (used when lifting).
    Returns None when the client offers nothing to match on.
    """
    target = _target_filter(ip_address, device_id)
    if target is None:
        return None
    conditions = [target, active_condition(clock.utcnow())]
    if not any_local_ip:
        narrowing = Block.local_ip.is_(None)
        conditions.append(or_(narrowing, Block.local_ip == local_ip) if local_ip else narrowing)
    return select(Block).where(*conditions)


def find_active_block(ip_address=None, device_id=None, local_ip=None):
    """The newest block that applies to the client now, or None.

    The few matching rows are ordered in Python: an ORDER BY in SQL invites
    the planner to walk the created_at index of the whole table instead.
    """
    query = active_blocks_query(ip_address, device_id, local_ip)
    if query is None:
        return None
    blocks = db.session.scalars(query).all()
    return max(blocks, key=lambda block: (block.created_at, block.id), default=None)


def create_block(*, network=None, device_id=None, local_ip=None, reason=None, expires_at=None,
                 minutes=None, actor=None, origin_ip=None):
    """Create a block on an IP/CIDR or a device id (exactly one), optionally expiring."""
    if (network is None) == (device_id is None):
        raise ValidationFailed({"target": [messages.BLOCK_ONE_TARGET]})
    if network is not None:
        try:
            network = canonical_network(network)
        except ValueError as exc:
            raise ValidationFailed({"ip": [messages.FIELD_BAD_IP_OR_CIDR]}) from exc
    now = clock.utcnow()
    if minutes is not None:
        expires_at = now + timedelta(minutes=minutes)
    if expires_at is not None and expires_at <= now:
        raise ValidationFailed({"expires_at": [messages.BLOCK_EXPIRY_PAST]})
    block = Block(reference=_unused_reference(), network=network, device_id=device_id,
                  local_ip=local_ip, reason=reason, expires_at=expires_at, created_at=now,
                  created_by_id=actor.id if actor else None)
    db.session.add(block)
    db.session.flush()
    record_event("block.created", block.reference, actor=actor, ip_address=origin_ip, details={
        "target": block.target, "local_ip": local_ip, "reason": reason,
        "expires_at": clock.isoformat(expires_at)})
    return block


def _unused_reference():
    for _ in range(10):
        reference = codes.new_code(REFERENCE_PREFIX)
        if db.session.scalar(select(Block.id).where(Block.reference == reference)) is None:
            return reference
    raise RuntimeError("could not find an unused block reference")  # pragma: no cover


def get_block(reference):
    """The block with this reference (any case), else NotFound."""
    canonical = codes.parse_code(REFERENCE_PREFIX, reference)
    block = canonical and db.session.scalar(select(Block).where(Block.reference == canonical))
    if not block:
        raise NotFound(messages.BLOCK_NOT_FOUND)
    return block


def _mark_lifted(block, actor, reason, now):
    """Conditional UPDATE: of two concurrent lifts exactly one changes the row."""
    changed = db.session.execute(
        update(Block).where(Block.id == block.id, Block.lifted_at.is_(None))
        .values(lifted_at=now, lifted_by_id=actor.id if actor else None, lift_reason=reason)
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.refresh(block)
    return changed == 1


def lift_block(reference, *, actor=None, reason=None, origin_ip=None):
    """Lift one block by reference; the row stays with who, when and why. Already lifted: 409."""
    block = get_block(reference)
    if not _mark_lifted(block, actor, reason, clock.utcnow()):
        db.session.rollback()
        raise InvalidState(messages.BLOCK_NOT_ACTIVE)
    record_event("block.lifted", block.reference, actor=actor, ip_address=origin_ip,
                 details={"target": block.target, "reason": reason})
    return block


def lift_blocks_matching(ip_address, device_id, actor=None, reason=None):
    """Lift every active block matching this IP (CIDR ranges included) or device id.

    Local-IP narrowing is ignored: a decision about the client covers all of
    its blocks. Returns the blocks this call lifted (a concurrent lift keeps its own).
    """
    query = active_blocks_query(ip_address, device_id, any_local_ip=True)
    if query is None:
        return []
    now = clock.utcnow()
    blocks = db.session.scalars(query.with_for_update()).all()
    return [block for block in blocks if _mark_lifted(block, actor, reason, now)]


def search_blocks(active=None, q=None, page=1, per_page=20):
    """Blocks, newest first; ``active`` True/False filters, ``q`` searches.

    ``q`` matches reference, target, local IP and reason; when it is an IP
    address it also finds the ranges containing it.
    """
    query = select(Block)
    now = clock.utcnow()
    if active is True:
        query = query.where(active_condition(now))
    elif active is False:
        query = query.where(~active_condition(now))
    if q:
        text_match = contains_text(q, Block.reference, Block.network, Block.device_id, Block.local_ip,
                                   Block.reason)
        try:
            query = query.where(or_(text_match, Block.network.in_(candidate_networks(q.strip()))))
        except ValueError:
            query = query.where(text_match)
    return paginate(query.order_by(Block.created_at.desc(), Block.id.desc()), page, per_page)

