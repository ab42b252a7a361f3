"""Blocks: creating, finding the one a client is under, lifting, listing."""
from datetime import timedelta

from sqlalchemy import Boolean, and_, bindparam, func, or_, select, true, union_all, update

from guardsvc import messages
from guardsvc.storage import clock, codes
from guardsvc.storage.statements import Prepared
from guardsvc.audit.service import record_event
from guardsvc.blocks.events import queue_block_event
from guardsvc.blocks.models import MANUAL, ORIGIN_CROWDSEC, AllowEntry, Block, target_kind
from guardsvc.blocks import coverage
from guardsvc.blocks.bounds import check_bounds
from guardsvc.blocks.networks import ZoneIdGiven, candidate_networks, canonical_network
from guardsvc.web.errors import InvalidState, NotFound, ValidationFailed
from guardsvc.extensions import db
from guardsvc.web.listing import COUNT_CAP, contains_text, paginate
from guardsvc.metrics import counters as metrics

__all__ = ["canonical_network", "candidate_networks"]  # kept importable from here

REFERENCE_PREFIX = codes.REFERENCE_PREFIX


def active_condition(now):
    """SQL: the block applies at ``now`` (not lifted, not expired).

    Expiry lives in the query, so an expired block stops applying the moment
    it expires, with no job to run and nothing to invalidate.
    """
    return and_(Block.lifted_at.is_(None), or_(Block.expires_at.is_(None), Block.expires_at > now))


# One bound parameter per possible prefix length of the client's address: a fixed statement
# needs no per-request SQL rendering, which an "expanding" IN list costs on every execution.
# An IPv4 address has 33 prefixes and an IPv6 one 129, so each size has statements of its own:
# the common IPv4 client binds a quarter of the values. Unused slots repeat the first prefix.
PREFIX_COUNTS = (33, 129)


def _matching_statement(network_params):
    """(id, created_at) of the blocks that apply now to one client: built once, compiled once.

    Each target (the IP's prefixes, the device id) is its own branch of a
    UNION ALL with the "not lifted" condition repeated, so that each branch is
    an IN/equality probe of its partial index. A single ``network IN (...) OR
    device_id = ...`` lets SQLite scan a whole index instead, which grows with
    the block list. A missing device id or local IP is bound as NULL, which
    equals nothing, so one statement serves every client.
    """
    conditions = (
        Block.lifted_at.is_(None),
        or_(Block.expires_at.is_(None), Block.expires_at > bindparam("now")),
        or_(Block.local_ip.is_(None), Block.local_ip == bindparam("local_ip"),
            bindparam("any_local_ip", type_=Boolean) == true()),
    )
    columns = (Block.id, Block.created_at)
    return union_all(
        select(*columns).where(Block.network.in_(network_params), *conditions),
        select(*columns).where(Block.device_id == bindparam("device_id"), *conditions),
    )


def _enforced_statement(network_params, matching):
    """Like ``matching``, minus everything when an active allow entry matches the client.

    Allow entries outrank blocks (``AllowEntry.outranks``), and the guard still
    runs one statement: two NOT EXISTS probes of the allow entries' partial
    indexes, with the same bound prefixes and device id as the block branches.
    An entry paired with a device matches only that device at its address; an
    approval's or a self-release's entry outranks only the blocks created before it (the probes are
    correlated with each matching block, of which a client has a handful at most).
    """
    blocks = matching.subquery("matching_blocks")
    conditions = (AllowEntry.removed_at.is_(None),
                  or_(AllowEntry.expires_at.is_(None), AllowEntry.expires_at > bindparam("now")),
                  or_(AllowEntry.made_by == MANUAL, AllowEntry.created_at >= blocks.c.created_at))
    allowed_network = select(AllowEntry.id).where(
        AllowEntry.network.in_(network_params),
        or_(AllowEntry.paired_device_id.is_(None), AllowEntry.paired_device_id == bindparam("device_id")),
        *conditions)
    allowed_device = select(AllowEntry.id).where(AllowEntry.device_id == bindparam("device_id"), *conditions)
    return select(blocks.c.id, blocks.c.created_at).where(~allowed_network.exists(), ~allowed_device.exists())


def _statements(count):
    """(parameter names, matching statement, enforced statement) for ``count`` prefixes."""
    params = [bindparam(f"network_{length}") for length in range(count)]
    matching = _matching_statement(params)
    return (tuple(param.key for param in params), Prepared(matching),
            Prepared(_enforced_statement(params, matching)))


_STATEMENTS = {count: _statements(count) for count in PREFIX_COUNTS}


def _matching_rows(ip_address, device_id, local_ip=None, any_local_ip=False, enforced=False):
    """(id, created_at) rows of blocks on this IP (any containing range) or device id, active now.

    A block narrowed by a local IP applies only when the client reports that
    local IP; ``any_local_ip`` ignores the narrowing (used when lifting).
    ``enforced`` leaves out everything when an allow entry matches the client.
    """
    if not ip_address and not device_id:
        return []
    candidates = candidate_networks(ip_address) if ip_address else ()
    count = next(count for count in PREFIX_COUNTS if len(candidates) <= count)
    names, matching, enforced_statement = _STATEMENTS[count]
    padded = candidates + (candidates[:1] or (None,)) * (count - len(candidates))
    return (enforced_statement if enforced else matching).rows({
        **dict(zip(names, padded)), "device_id": device_id or None, "local_ip": local_ip or None,
        "any_local_ip": any_local_ip, "now": clock.utcnow()})


def find_active_block_id(ip_address=None, device_id=None, local_ip=None):
    """The id of the newest block that applies to the client now, or None (no ORM load)."""
    rows = _matching_rows(ip_address, device_id, local_ip, enforced=True)
    return max(rows, key=lambda row: (row.created_at, row.id)).id if rows else None


def find_active_block(ip_address=None, device_id=None, local_ip=None):
    """The newest block that applies to the client now, or None (also when an allow entry matches).

    Runs on every guarded request: one precompiled query reading two columns,
    and an ORM load only when the client is blocked.
    """
    block_id = find_active_block_id(ip_address, device_id, local_ip)
    return None if block_id is None else db.session.get(Block, block_id)


def create_block(*, network=None, device_id=None, local_ip=None, reason=None, expires_at=None,
                 minutes=None, actor=None, origin_ip=None, origin=None, source_decision_id=None,
                 device_issued=False, self_release=False, source_origin=None):
    """Create a block on an IP/CIDR or a device id (exactly one), optionally expiring.

    ``origin`` and ``source_decision_id`` name another system's decision it is imported from,
    ``source_origin`` where that system says the decision came from.
    """
    network = checked_target(network, device_id)
    source = "crowdsec" if origin == ORIGIN_CROWDSEC else "guardsvc"
    if network is not None:
        check_bounds(network, source)
    now = clock.utcnow()
    expires_at = checked_expiry(now, minutes, expires_at)
    if network is not None:
        coverage.take_for_block(network, expires_at, source)  # refused when all blocks together would cover too much
        now = clock.utcnow()  # after the gate: stamped in the order blocks are committed
    block = Block(reference=_unused_reference(), network=network, device_id=device_id,
                  local_ip=local_ip, reason=reason, expires_at=expires_at, created_at=now,
                  created_by_id=actor.id if actor else None, origin=origin,
                  source_decision_id=source_decision_id, device_issued=device_issued,
                  self_release=self_release, source_origin=source_origin)
    db.session.add(block)
    db.session.flush()
    metrics.BLOCKS_CREATED.inc()
    record_event("block.created", block.reference, actor=actor, ip_address=origin_ip, details={
        "kind": target_kind(block), "narrowed": local_ip is not None, "reason": reason,
        "expires_at": clock.isoformat(expires_at), **({"origin": origin} if origin else {}),
        **({"self_release": True} if self_release else {})})
    queue_block_event("block.created", block)
    return block


def checked_target(network, device_id):
    """The canonical network of a target that is exactly one of an IP/CIDR or a device id."""
    if (network is None) == (device_id is None):
        raise ValidationFailed({"target": [messages.BLOCK_ONE_TARGET]})
    if network is None:
        return None
    try:
        return canonical_network(network)
    except ZoneIdGiven as exc:
        raise ValidationFailed({"ip": [messages.FIELD_IP_ZONE_ID]}) from exc
    except ValueError as exc:
        raise ValidationFailed({"ip": [messages.FIELD_BAD_IP_OR_CIDR]}) from exc


def checked_expiry(now, minutes, expires_at):
    """The expiry given as minutes from ``now`` or as a moment; it must lie in the future."""
    if minutes is not None:
        expires_at = now + timedelta(minutes=minutes)
    if expires_at is not None and expires_at <= now:
        raise ValidationFailed({"expires_at": [messages.BLOCK_EXPIRY_PAST]})
    return expires_at


def _unused_reference():
    for _ in range(10):
        reference = codes.new_code(REFERENCE_PREFIX)
        if db.session.scalar(select(Block.id).where(Block.reference == reference)) is None:
            return reference
    raise RuntimeError("could not find an unused block reference")  # pragma: no cover


def find_block(reference):
    """The block with this reference (any case), or None for an unknown or malformed one."""
    canonical = codes.parse_code(REFERENCE_PREFIX, reference or "")
    return db.session.scalar(select(Block).where(Block.reference == canonical)) if canonical else None


def get_block(reference):
    """The block with this reference (any case), else NotFound."""
    block = find_block(reference)
    if not block:
        raise NotFound(messages.BLOCK_NOT_FOUND)
    return block


def _mark_lifted(block, actor, reason, now):
    """Conditional UPDATE: of two concurrent lifts exactly one changes the row (it alone counts and tells).

    A block that covers public IPv4 addresses gives them back to the coverage (``coverage``): its caller
    passed the coverage gate first, before any block row was locked, as every writer does.
    """
    changed = db.session.execute(
        update(Block).where(Block.id == block.id, Block.lifted_at.is_(None))
        .values(lifted_at=now, lifted_by_id=actor.id if actor else None, lift_reason=reason)
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.refresh(block)
    if changed == 1:
        coverage.release_blocks([block])
        metrics.BLOCKS_LIFTED.inc()
        queue_block_event("block.lifted", block)
    return changed == 1


def lift_block(reference, *, actor=None, reason=None, origin_ip=None):
    """Lift one block by reference; the row stays with who, when and why. Already lifted: 409."""
    block = get_block(reference)
    if coverage.counts([block]):
        coverage.pass_block_gate()
    if not _mark_lifted(block, actor, reason, clock.utcnow()):
        raise InvalidState(messages.BLOCK_NOT_ACTIVE)
    record_event("block.lifted", block.reference, actor=actor, ip_address=origin_ip,
                 details={"kind": target_kind(block), "reason": reason})
    return block


def set_self_release(reference, on, *, actor=None, origin_ip=None):
    """Let the person under this block release it by a proof of work (``on``), or not; audited when it changes."""
    block = get_block(reference)
    if block.self_release != on:
        block.self_release = on
        db.session.flush()
        record_event("block.self_release_changed", block.reference, actor=actor, ip_address=origin_ip,
                     details={"self_release": on})
    return block


def blocks_on_client(ip_address, device_id):
    """Every active block on this IP (CIDR ranges included) or device id, oldest first.

    Local-IP narrowing and allow entries are ignored: this is what a decision
    about the client weighs, not what the guard enforces right now.
    """
    ids = {row.id for row in _matching_rows(ip_address, device_id, any_local_ip=True)}
    if not ids:
        return []
    return db.session.scalars(select(Block).where(Block.id.in_(ids))
                              .order_by(Block.created_at, Block.id)).all()


# Clients whose blocks are read in one statement by ``blocks_on_clients`` (IPv4: up to 33 prefixes each).
CLIENTS_PER_STATEMENT = 250


def client_prefixes(ip_address):
    """Every network that contains ``ip_address`` (a set of canonical texts; empty without an address)."""
    return set(candidate_networks(ip_address)) if ip_address else set()


def for_each_client(clients, model, active, choose):
    """``choose(rows, prefixes, device_id)`` for each ``(ip_address, device_id)`` of ``clients``, in order.

    ``rows`` are the rows of ``model`` (blocks or allow entries) matching ``active`` on any prefix of the
    chunk's addresses or on its devices, by id: read for a chunk of clients in two statements, so a
    thousand clients cost a few statements, not two thousand.
    """
    found = []
    for start in range(0, len(clients), CLIENTS_PER_STATEMENT):
        chunk = clients[start:start + CLIENTS_PER_STATEMENT]
        prefixes = [client_prefixes(ip_address) for ip_address, _ in chunk]
        devices = {device_id for _, device_id in chunk if device_id}
        rows = {}
        for column, values in ((model.network, set().union(*prefixes)), (model.device_id, devices)):
            if values:
                rows.update((row.id, row) for row in db.session.scalars(
                    select(model).where(column.in_(sorted(values)), *active)))
        ordered = sorted(rows.values(), key=lambda row: row.id)
        found.extend(choose(ordered, mine, device_id) for mine, (_, device_id) in zip(prefixes, chunk))
    return found


def blocks_on_clients(clients):
    """``blocks_on_client`` for many ``(ip_address, device_id)`` pairs at once: a list of block lists, in order.

    The same rule (active blocks on the IP, its ranges included, or on the
    device id; local-IP narrowing ignored), read for many clients together
    (``for_each_client``), so deciding a wave of a thousand appeals does not
    ask once per appellant.
    """
    now = clock.utcnow()
    active = (Block.lifted_at.is_(None), or_(Block.expires_at.is_(None), Block.expires_at > now))

    def on_client(found, prefixes, device_id):
        return sorted((block for block in found
                       if block.network in prefixes or (device_id and block.device_id == device_id)),
                      key=lambda block: (block.created_at, block.id))

    return for_each_client(clients, Block, active, on_client)


def lift_blocks(blocks, actor=None, reason=None):
    """Lift these blocks; returns the ones this call lifted (a concurrent lift keeps its own)."""
    if not blocks:
        return []
    if coverage.counts(blocks):
        coverage.pass_block_gate()  # before the rows' locks: every writer takes the gate first
    now = clock.utcnow()
    locked = db.session.scalars(select(Block).where(Block.id.in_([block.id for block in blocks]))
                                .order_by(Block.id).with_for_update()).all()
    return [block for block in locked if _mark_lifted(block, actor, reason, now)]


def search_blocks(active=None, q=None, page=1, per_page=20):
    """Blocks, newest first; ``active`` True/False filters, ``q`` searches.

    ``q`` matches reference, target, local IP and reason; when it is an IP
    address it also finds the ranges containing it.
    """
    query = filtered(select(Block), active_condition(clock.utcnow()), active, q, Block.network,
                     Block.reference, Block.network, Block.device_id, Block.local_ip, Block.reason)
    # Imported lists reach a million blocks: the count stops at COUNT_CAP, as the ticket queue's does.
    return paginate(query.order_by(Block.created_at.desc(), Block.id.desc()), page, per_page, count_cap=COUNT_CAP)


def filtered(query, is_active, active, q, network_column, *text_columns):
    """``query`` narrowed to active (True) or inactive (False) rows and to text ``q``.

    When ``q`` is an IP address it also finds the ranges in ``network_column`` containing it.
    """
    if active is True:
        query = query.where(is_active)
    elif active is False:
        query = query.where(~is_active)
    if q:
        text_match = contains_text(q, *text_columns)
        try:
            query = query.where(or_(text_match, network_column.in_(candidate_networks(q.strip()))))
        except ValueError:
            query = query.where(text_match)
    return query


def count_active():
    """How many blocks apply now (not lifted, not expired)."""
    return db.session.scalar(select(func.count()).select_from(Block).where(active_condition(clock.utcnow())))
