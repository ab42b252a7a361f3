"""The edge list: every active block, in the form a proxy's Lua module matches without asking.

nginx (``deploy/nginx/guardsvc_edge.lua``) pulls the whole list once, then
every second only what changed since its cursor, and lets a request through on
its own when neither the client's address nor its device can be under a block.
Anything the list might match goes to forward auth, which applies every rule
(allow entries, approvals, local-IP narrowing). So the list only has to be a
superset of what blocks: it leaves out allow entries and the local-IP
narrowing, and a range with an allowed address in it sends that address to
forward auth, which lets it pass.

One line per target::

    n 4/24/c0a801 1767225600     a network: version/prefix length/leading hex digits, expiry
    d 3f786850e387550fdab836ed7e6dc881de23001b 0
                                 a device: SHA-1 hex of its id (the cookie's value is a secret
                                 the edge need not hold), expiry (0: none)
    n 4/32/cb007107 -            (deltas only) no active block on this target any more

A target's expiry is the latest of its active blocks' (0 when one never expires); the
edge forgets it then by itself, so an expiry needs no delta. A network's key is the hex
of its address cut to ceil(prefix/4) digits (host bits are zero in a canonical network),
which the Lua side rebuilds for each prefix length the list holds with one mask of the
last digit: no address text, no IPv6 compression rules to agree on.

Deltas come from ``edge_changes``, which database triggers fill for every block
inserted or updated, whoever writes it. The cursor is the id of the last change
the edge has; a delta sends the current state of the targets of the blocks
changed after it (idempotent, so sending one twice is harmless). On PostgreSQL
ids are drawn before their transaction commits, so a missing id may still
arrive: the cursor stops before such a gap until ``GAP_GRACE`` seconds have
passed (a rolled-back id never arrives). A cursor the log no longer reaches,
or a delta of more than ``MAX_DELTA`` changes, is answered with the whole list.
"""
import hashlib
import ipaddress
import math
import time
from datetime import timezone

from sqlalchemy import func, select

from guardsvc.blocks.models import Block, EdgeChange
from guardsvc.blocks.service import active_condition
from guardsvc.extensions import db
from guardsvc.storage import clock

# More changes than this since a cursor: the whole list is sent instead. An edge loads a whole list
# from nothing (asking forward auth about every request meanwhile), so only a change of most of a
# million-block list (a first import) is worth that; an import of a few hundred thousand is a delta.
MAX_DELTA = 250_000
# How far back the cursor of a whole list looks for gaps that may still fill (recent changes).
SNAPSHOT_WINDOW = 20_000
# How long an id missing from the log may still be an uncommitted transaction's (a bulk import).
GAP_GRACE = 120
# Rows read per round trip while the whole list is written.
BATCH = 20_000
_CHUNK = 2_000  # targets per IN (...) of a delta


def network_key(network):
    """``"192.168.1.0/24"`` -> ``"4/24/c0a801"``; IPv4-mapped IPv6 is stored as IPv4 already.

    Read straight from the canonical text (a whole list formats a million of them).
    """
    address, _, length = network.partition("/")
    digits = (int(length) + 3) // 4
    if ":" in address:
        return f"6/{length}/" + _ipv6_hex(address)[:digits]
    first, second, third, fourth = address.split(".")
    return f"4/{length}/" + f"{int(first):02x}{int(second):02x}{int(third):02x}{int(fourth):02x}"[:digits]


def _ipv6_hex(address):
    """32 hex digits of an IPv6 address in ``ipaddress``'s text (``::`` compression, no leading zeros)."""
    if "." in address:  # an embedded IPv4 tail: leave it to ipaddress
        return f"{int(ipaddress.IPv6Address(address)):032x}"
    head, compressed, tail = address.partition("::")
    first = head.split(":") if head else []
    last = tail.split(":") if tail else []
    groups = first + ["0"] * (8 - len(first) - len(last)) + last if compressed else first
    return "".join(group.rjust(4, "0") for group in groups)


def device_key(device_id):
    """What the edge holds of a device id: its SHA-1 hex (Lua: ``ngx.sha1_bin`` of the cookie)."""
    return hashlib.sha1(device_id.encode("utf-8")).hexdigest()


def _expiry(expires_at):
    """Unix seconds, rounded up (the edge keeps an entry until it has surely expired); 0 for never."""
    if expires_at is None:
        return 0
    return math.ceil(expires_at.replace(tzinfo=timezone.utc).timestamp())


def _line(network, device_id, expiry):
    if network is not None:
        return f"n {network_key(network)} {expiry}\n"
    return f"d {device_key(device_id)} {expiry}\n"


def edge_snapshot():
    """``(cursor, text)``: every block active now, and the cursor the deltas after it start from.

    The cursor is taken first: a change that lands while the list is read is
    sent again by the next delta, never lost. A target under several blocks may
    have several lines; the edge keeps the latest expiry.
    """
    cursor = snapshot_cursor()
    query = select(Block.network, Block.device_id, Block.expires_at).where(active_condition(clock.utcnow()))
    lines = []
    append = lines.append
    # Core rows, read a batch at a time: a million of them, no ORM bookkeeping per row.
    result = db.session.connection().execution_options(yield_per=BATCH).execute(query)
    for network, device_id, expires_at in result:
        expiry = 0 if expires_at is None else _expiry(expires_at)
        append(f"n {network_key(network)} {expiry}\n" if network is not None
               else f"d {device_key(device_id)} {expiry}\n")
    return cursor, "".join(lines)


def edge_delta(since):
    """``(cursor, text)`` of what changed after cursor ``since``; None when only the whole list will do."""
    changed = changed_blocks(since, limit=MAX_DELTA)
    if changed is None:
        return None
    cursor, block_ids = changed
    return cursor, _current_lines(block_ids)


def changed_blocks(since, limit=None):
    """``(cursor, {block id, ...})`` of the changes logged after cursor ``since``.

    None when the log no longer reaches ``since`` (another database, or changes
    pruned before the reader saw them) or holds more than ``limit`` of them.
    """
    # Two statements: SQLite reads a lone min() or max() off the index, but both at once by a scan.
    low = db.session.scalar(select(func.min(EdgeChange.id)))
    high = db.session.scalar(select(func.max(EdgeChange.id)))
    if high is None:
        return (since, set()) if since == 0 else None
    if since > high or since < low - 1:
        return None
    query = select(EdgeChange.id, EdgeChange.block_id, EdgeChange.logged_at).where(
        EdgeChange.id > since).order_by(EdgeChange.id)
    rows = db.session.execute(query if limit is None else query.limit(limit + 1)).all()
    if limit is not None and len(rows) > limit:
        return None
    return _advance(since, rows), {row.block_id for row in rows}


def first_logged(block_ids):
    """``{block id: id of its first change still in the log}`` (a block missing is older than the log)."""
    ids, result = sorted(block_ids), {}
    for chunk in _chunks(ids):
        result.update(db.session.execute(select(EdgeChange.block_id, func.min(EdgeChange.id))
                                         .where(EdgeChange.block_id.in_(chunk)).group_by(EdgeChange.block_id)).all())
    return result


def snapshot_cursor():
    """The cursor a whole list starts from: the newest change, or just before a gap that may still fill."""
    rows = db.session.execute(select(EdgeChange.id, EdgeChange.logged_at)
                              .order_by(EdgeChange.id.desc()).limit(SNAPSHOT_WINDOW)).all()
    if not rows:
        return 0
    rows.reverse()
    return _advance(rows[0].id - 1, rows)


def _advance(since, rows):
    """The cursor after ``rows`` (ascending ids after ``since``): held before a recent gap.

    Compared with the wall clock, not ``clock.utcnow``: ``logged_at`` is the database's clock.
    """
    recent = time.time() - GAP_GRACE
    cursor, expected, held = since, since + 1, False
    for row in rows:
        held = held or (row.id != expected and row.logged_at > recent)
        if not held:
            cursor = row.id
        expected = row.id + 1
    return cursor


def _chunks(values):
    values = list(values)
    return (values[start:start + _CHUNK] for start in range(0, len(values), _CHUNK))


def _current_lines(block_ids):
    """The current state of every target these blocks are on: its expiry line, or ``-`` when none applies."""
    networks, devices = set(), set()
    for chunk in _chunks(block_ids):
        for row in db.session.execute(select(Block.network, Block.device_id).where(Block.id.in_(chunk))):
            (networks if row.network is not None else devices).add(row.network or row.device_id)
    active = active_condition(clock.utcnow())
    expiries = {}
    for column, targets in ((Block.network, networks), (Block.device_id, devices)):
        for chunk in _chunks(sorted(targets)):
            for target, expires_at in db.session.execute(
                    select(column, Block.expires_at).where(column.in_(chunk), active)):
                expiry = _expiry(expires_at)
                known = expiries.get((column.key, target))
                if known is None or (known != 0 and (expiry == 0 or expiry > known)):
                    expiries[(column.key, target)] = expiry
    lines = []
    for column, targets in ((Block.network, networks), (Block.device_id, devices)):
        for target in sorted(targets):
            expiry = expiries.get((column.key, target), "-")
            lines.append(_line(target if column is Block.network else None,
                               target if column is Block.device_id else None, expiry))
    return "".join(lines)
