"""Blocks as addresses, for enforcement outside guardsvc (CrowdSec bouncers, firewalls).

Such enforcement sees an address and nothing else, so it gets the active blocks
on an IP or a range that apply to every client of that address (a block
narrowed by a local IP, or on a device, is guardsvc's alone), each with the
allowed networks that outrank it (``allows.allow_outranks``). Only blocks made
in guardsvc: one imported from another system (a CrowdSec decision) is that
system's to hand out, and sending it back would echo it.
"""
import ipaddress

from sqlalchemy import select

from guardsvc.blocks.allows import active_network_allow_entries, allow_outranks
from guardsvc.blocks.models import Block
from guardsvc.blocks.networks import candidate_networks
from guardsvc.blocks.service import active_condition
from guardsvc.extensions import db
from guardsvc.storage import clock


ADDRESS_BLOCK = (Block.network.is_not(None), Block.local_ip.is_(None), Block.origin.is_(None))
_CHUNK = 2_000


def _address_query():
    return select(Block.id, Block.reference, Block.network, Block.created_at, Block.expires_at).where(
        active_condition(clock.utcnow()), *ADDRESS_BLOCK)


def address_blocks(containing=None, ids=None):
    """``[(block row, ip_network, [allowed ip_network, ...])]`` of the active address blocks, by id.

    ``containing`` (an IP address) keeps only the blocks whose network holds it;
    ``ids`` only these blocks. A row has ``id``, ``reference``, ``network``,
    ``created_at``, ``expires_at``.
    """
    query = _address_query()
    if containing is not None:
        query = query.where(Block.network.in_(candidate_networks(containing)))
    if ids is None:
        rows = db.session.execute(query.order_by(Block.id)).all()
    else:
        ids = sorted(ids)
        rows = [row for start in range(0, len(ids), _CHUNK)
                for row in db.session.execute(query.where(Block.id.in_(ids[start:start + _CHUNK]))
                                              .order_by(Block.id))]
    if not rows:
        return []
    within, exact = _index_allows(active_network_allow_entries())
    lengths = {(hole.version, hole.prefixlen) for pairs in exact.values() for _, hole in pairs}
    result = []
    for row in rows:
        network = ipaddress.ip_network(row.network)
        # CIDR networks either nest or do not meet: the allows inside this one (or equal to it), and
        # those around it, at the prefix lengths allow entries have.
        around = [network.supernet(new_prefix=length).with_prefixlen for version, length in lengths
                  if version == network.version and length < network.prefixlen]
        meeting = within.get(row.network, []) + [pair for text in around for pair in exact.get(text, ())]
        result.append((row, network, [hole for entry, hole in meeting if allow_outranks(entry, row)]))
    return result


def _index_allows(entries):
    """``(within, exact)``: ``{network text: [(entry, ip_network)]}`` of the allows inside each
    network (every prefix of each allowed network) and of the allows on exactly that network.

    So finding the allows that meet a block costs a few dictionary lookups, not
    a comparison with every allow entry.
    """
    within, exact = {}, {}
    for entry in entries:
        network = ipaddress.ip_network(entry.network)
        exact.setdefault(entry.network, []).append((entry, network))
        for length in range(network.prefixlen + 1):
            within.setdefault(network.supernet(new_prefix=length).with_prefixlen, []).append((entry, network))
    return within, exact


def all_address_blocks():
    """Every active address block as ``(id, reference, network, expires_at)``, read a batch at a time."""
    query = (select(Block.id, Block.reference, Block.network, Block.expires_at)
             .where(active_condition(clock.utcnow()), *ADDRESS_BLOCK).order_by(Block.id))
    # Core rows, no ORM bookkeeping: a million of them.
    return db.session.connection().execution_options(yield_per=20_000).execute(query)


def blocks_meeting(networks):
    """Ids of the active address blocks that contain, equal or lie inside one of these networks (texts).

    The blocks around a network are found by its prefixes in the index; those inside a range are
    found by reading every address block's network, which only a changed allowed *range* asks for.
    """
    ids, ranges = set(), []
    for text in networks:
        network = ipaddress.ip_network(text)
        around = [prefix for prefix in candidate_networks(str(network.network_address))
                  if int(prefix.rsplit("/", 1)[1]) <= network.prefixlen]
        ids.update(db.session.scalars(select(Block.id).where(
            Block.network.in_(around), active_condition(clock.utcnow()), *ADDRESS_BLOCK)))
        if network.num_addresses > 1:
            ranges.append(network)
    if ranges:
        for row in db.session.execute(select(Block.id, Block.network).where(
                active_condition(clock.utcnow()), *ADDRESS_BLOCK).execution_options(yield_per=20_000)):
            block = ipaddress.ip_network(row.network)
            if any(block.version == hole.version and block.subnet_of(hole) for hole in ranges):
                ids.add(row.id)
    return ids


def address_targets(ids, ended=False):
    """``{id: (reference, network)}`` of these blocks when they are address blocks, active or not
    (``ended``: only those that no longer apply)."""
    ids, result = sorted(ids), {}
    conditions = ADDRESS_BLOCK + ((~active_condition(clock.utcnow()),) if ended else ())
    for start in range(0, len(ids), _CHUNK):
        for row in db.session.execute(select(Block.id, Block.reference, Block.network).where(
                Block.id.in_(ids[start:start + _CHUNK]), *conditions)):
            result[row.id] = (row.reference, row.network)
    return result


def expired_between(start, end):
    """Ids of the unlifted address blocks whose expiry fell in (``start``, ``end``]."""
    return set(db.session.scalars(select(Block.id).where(
        Block.lifted_at.is_(None), Block.expires_at > start, Block.expires_at <= end, *ADDRESS_BLOCK)))


def blocks_by_id(ids):
    """``{id: (lifted_at, expires_at)}`` of these blocks, lifted and expired ones included."""
    ids, result = sorted(ids), {}
    for start in range(0, len(ids), _CHUNK):
        for row in db.session.execute(select(Block.id, Block.lifted_at, Block.expires_at)
                                      .where(Block.id.in_(ids[start:start + _CHUNK]))):
            result[row.id] = (row.lifted_at, row.expires_at)
    return result
