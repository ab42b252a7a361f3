"""Blocks: creating, finding the one a client is under, lifting."""
import ipaddress

from sqlalchemy import or_, select

from guardsvc import clock, codes, messages
from guardsvc.blocks.models import Block
from guardsvc.errors import InvalidState, NotFound, ValidationFailed
from guardsvc.extensions import db

REFERENCE_PREFIX = "BLK"


def canonical_network(text):
    """``"10.1.2.3"`` -> ``"10.1.2.3/32"``; ``"10.1.2.0/24"`` stays; host bits are refused."""
    network = ipaddress.ip_network(text.strip(), strict=True)
    if isinstance(network, ipaddress.IPv6Network) and network.prefixlen >= 96:
        mapped = network.network_address.ipv4_mapped
        if mapped is not None:
            network = ipaddress.ip_network(f"{mapped}/{network.prefixlen - 96}")
    return network.with_prefixlen


def candidate_networks(ip_address):
    """Every network that contains ``ip_address``: one per prefix length.

    Looking these up in an index costs the same whatever the size of the
    block list (33 keys for IPv4, 129 for IPv6).
    """
    address = ipaddress.ip_address(ip_address)
    width = address.max_prefixlen
    return [ipaddress.ip_network(f"{address}/{length}", strict=False).with_prefixlen
            for length in range(width, -1, -1)]


def _target_filter(ip_address, device_id):
    targets = []
    if ip_address:
        targets.append(Block.network.in_(candidate_networks(ip_address)))
    if device_id:
        targets.append(Block.device_id == device_id)
    return or_(*targets) if targets else None


def active_blocks_query(ip_address=None, device_id=None, local_ip=None, *, any_local_ip=False):
    """Blocks that apply now to a client with this IP, device id and local IP.

    ``any_local_ip`` ignores local-IP narrowing (used when lifting).
    Returns None when the client offers nothing to match on.
    """
    target = _target_filter(ip_address, device_id)
    if target is None:
        return None
    now = clock.utcnow()
    conditions = [target, Block.lifted_at.is_(None),
                  or_(Block.expires_at.is_(None), Block.expires_at > now)]
    if not any_local_ip:
        narrowing = Block.local_ip.is_(None)
        conditions.append(or_(narrowing, Block.local_ip == local_ip) if local_ip else narrowing)
    return select(Block).where(*conditions).order_by(Block.created_at.desc(), Block.id.desc())


def find_active_block(ip_address=None, device_id=None, local_ip=None):
    """The newest block that applies to the client now, or None."""
    query = active_blocks_query(ip_address, device_id, local_ip)
    return None if query is None else db.session.scalar(query.limit(1))


def create_block(*, network=None, device_id=None, local_ip=None, reason=None,
                 expires_at=None, actor=None):
    """Create a block on an IP/CIDR or a device id (exactly one)."""
    if (network is None) == (device_id is None):
        raise ValidationFailed({"target": ["Isi salah satu: alamat IP/CIDR atau ID perangkat."]})
    if network is not None:
        try:
            network = canonical_network(network)
        except ValueError as exc:
            raise ValidationFailed({"ip": [messages.FIELD_BAD_IP_OR_CIDR]}) from exc
    block = Block(reference=_unused_reference(), network=network, device_id=device_id,
                  local_ip=local_ip, reason=reason, expires_at=expires_at,
                  created_by_id=actor.id if actor else None)
    db.session.add(block)
    db.session.flush()
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


def lift_block(block, actor=None, reason=None):
    """Lift one block; the row stays with who, when and why."""
    if block.lifted_at is not None:
        raise InvalidState(messages.BLOCK_NOT_ACTIVE)
    block.lifted_at = clock.utcnow()
    block.lifted_by_id = actor.id if actor else None
    block.lift_reason = reason
    return block


def lift_blocks_matching(ip_address, device_id, actor=None, reason=None):
    """Lift every active block matching this IP (CIDR ranges included) or device id."""
    query = active_blocks_query(ip_address, device_id, any_local_ip=True)
    if query is None:
        return []
    blocks = db.session.scalars(query.with_for_update()).all()
    return [lift_block(block, actor, reason) for block in blocks]
