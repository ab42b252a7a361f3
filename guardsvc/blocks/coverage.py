"""However the world is split (contract section 15): what all active blocks cover together is capped.

The widest-block rule (``bounds``) judges each entry alone, so 255 ``/8`` lines
would each pass it and together answer 403 to every visitor. This module keeps
what the active blocks cover of the **public IPv4 space** (global unicast:
3,702,258,432 addresses; private, reserved, multicast and documentation ranges
are not counted, so a list that carries the bogons costs nothing for them) and
refuses a block that would take that share past ``GUARDSVC_MAX_COVERAGE``.

What is counted is the **sum** of every active block's public addresses, kept
in ``BlockCoverage`` by the hour the blocks expire in: adding or lifting one
block changes one row, and the check reads a few hundred rows at most, whatever
the number of blocks. Blocks that overlap (a range and an address inside it,
two CrowdSec decisions on one range) count twice: the sum is never below what
they cover together, so the cap is never passed, and real lists barely overlap
(an import skips what is already blocked).

Every writer that changes the sum, and every maker of an allow entry that yields
to later blocks, passes ``BlockGate`` first: two writers cannot together pass the
cap, and an import finishing learns of every approval or self-release that was
committed while it ran (``bulk_import`` stamps the blocks those clients are
under with its commit time).
"""
import bisect
import ipaddress
import logging
import socket
from collections import defaultdict
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import format_decimal
from sqlalchemy import bindparam, delete, func, select, update

from guardsvc import messages
from guardsvc.blocks.models import Block, BlockCoverage, BlockGate
from guardsvc.extensions import db
from guardsvc.metrics import counters as metrics
from guardsvc.storage import clock
from guardsvc.storage.gates import pass_gate
from guardsvc.storage.inserts import insert_unless_conflict
from guardsvc.web.errors import ValidationFailed

log = logging.getLogger(__name__)

# IPv4 space that is not global unicast (IANA special-purpose registry, multicast and the reserved
# 240/4): blocks on it cover no one on the Internet, so they cost nothing of the cap.
NOT_PUBLIC_IPV4 = ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
                   "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
                   "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4")
_NOT_PUBLIC = sorted((int(net.network_address), int(net.broadcast_address))
                     for net in map(ipaddress.IPv4Network, NOT_PUBLIC_IPV4))
_NOT_PUBLIC_FIRSTS = [first for first, _ in _NOT_PUBLIC]
PUBLIC_IPV4 = (1 << 32) - sum(last - first + 1 for first, last in _NOT_PUBLIC)  # 3,702,258,432

# The bucket of blocks that never expire: after every other one.
NEVER = datetime(9999, 12, 31)
BUCKET = timedelta(hours=1)


def public_addresses(version, first, prefixlen):
    """How many public IPv4 addresses the network of ``version`` from integer ``first`` with ``prefixlen`` holds."""
    if version != 4:
        return 0
    if prefixlen == 32:  # most blocks: one address, public unless a reserved range holds it
        index = bisect.bisect_right(_NOT_PUBLIC_FIRSTS, first) - 1
        return 0 if index >= 0 and _NOT_PUBLIC[index][1] >= first else 1
    last = first + (1 << (32 - prefixlen)) - 1
    count = last - first + 1
    index = bisect.bisect_right(_NOT_PUBLIC_FIRSTS, last)
    while index:  # the reserved ranges starting at or before ``last``, from the nearest back
        index -= 1
        low, high = _NOT_PUBLIC[index]
        if high < first:
            break
        count -= min(high, last) - max(low, first) + 1
    return count


def public_addresses_of(network):
    """``public_addresses`` of a canonical network text (``"203.0.113.0/24"``, ``"2001:db8::/32"``)."""
    if ":" in network:
        return 0
    address, _, length = network.partition("/")
    return public_addresses(4, int.from_bytes(socket.inet_aton(address), "big"), int(length or 32))


def cap_addresses():
    """The most public IPv4 addresses the active blocks may cover together; None when there is no cap."""
    share = current_app.config["MAX_COVERAGE"]
    return None if share is None else int(share * PUBLIC_IPV4)


def share_text(addresses):
    """``"5,07%"``: a count of public addresses as a share of the public IPv4 space, in the reader's language."""
    return format_decimal(100 * addresses / PUBLIC_IPV4, format="#,##0.##") + "%"


def cap_text():
    return format_decimal(100 * current_app.config["MAX_COVERAGE"], format="#,##0.##") + "%"


def refusal_text(network, covered, addresses):
    """Why a block on ``network`` (text) is refused when ``covered`` addresses are covered and it adds ``addresses``."""
    return messages.BLOCK_COVERAGE_EXCEEDED.format(network=network, share=share_text(covered + addresses),
                                                   cap=cap_text())


class CoverageExceeded(ValidationFailed):
    """A block would take what the active blocks cover past ``GUARDSVC_MAX_COVERAGE`` (422 on ``ip``)."""

    def __init__(self, network, covered, addresses):
        super().__init__({"ip": [refusal_text(network, covered, addresses)]})
        self.network, self.covered, self.addresses = network, covered, addresses


def bucket_of(expires_at):
    """The hour ``expires_at`` falls in, rounded up (``NEVER`` for a block that never expires)."""
    if expires_at is None:
        return NEVER
    hour = expires_at.replace(minute=0, second=0, microsecond=0)
    return hour if hour == expires_at else hour + BUCKET


def pass_block_gate():
    """Take the gate of what blocks cover: the rest of this transaction changes it alone.

    The first pass ever (an installation whose gate row is gone) counts what the blocks there cover,
    holding the gate, those this transaction wrote included; it then returns True.
    """
    return pass_gate(BlockGate, clock.utcnow(), on_first_pass=lambda: _count_from_blocks(clock.utcnow()))


# Plain table statements with bound values: compiled once, no ORM bookkeeping (a CrowdSec pull adds thousands).
_BUCKETS = BlockCoverage.__table__
_COVERED = select(func.coalesce(func.sum(_BUCKETS.c.addresses), 0)).where(_BUCKETS.c.ends_at > bindparam("now"))
_ENDED = delete(_BUCKETS).where(_BUCKETS.c.ends_at <= bindparam("now"))
_CHANGE = update(_BUCKETS).where(_BUCKETS.c.ends_at == bindparam("bucket")).values(
    addresses=_BUCKETS.c.addresses + bindparam("change"))


def covered(now=None):
    """Public IPv4 addresses the active blocks cover (their sum: never less than their union)."""
    return db.session.scalar(_COVERED, {"now": now or clock.utcnow()})


def room_for(addresses):
    """With the gate passed: ``(covered now, fits)`` for blocks adding ``addresses`` public addresses."""
    now = clock.utcnow()
    db.session.execute(_ENDED, {"now": now})  # buckets that ended
    cap, now_covered = cap_addresses(), covered(now)
    return now_covered, cap is None or now_covered + addresses <= cap


def add(expires_at, addresses):
    """Count ``addresses`` more public addresses, covered until ``expires_at`` (gate passed)."""
    if not addresses:
        return
    values = {"bucket": bucket_of(expires_at), "change": addresses}
    if not db.session.execute(_CHANGE, values).rowcount and insert_unless_conflict(
            BlockCoverage, {"ends_at": values["bucket"], "addresses": addresses}) is None:
        db.session.execute(_CHANGE, values)  # pragma: no cover - another writer made the row (gate passed: never)


def take_for_block(network, expires_at, source):
    """Before a block on ``network`` (canonical text) is stored: refuse it (counted by ``source``) when it would
    take the coverage past the cap, else count it. Returns the addresses it counts."""
    addresses = public_addresses_of(network)
    if not addresses:
        return 0
    pass_block_gate()
    now_covered, fits = room_for(addresses)
    if not fits:
        metrics.BLOCKS_REFUSED.labels(source=source).inc()
        raise CoverageExceeded(network, now_covered, addresses)
    add(expires_at, addresses)
    return addresses


def release_blocks(blocks):
    """Take these blocks, lifted now by this transaction, out of what is covered (gate passed)."""
    now = clock.utcnow()
    for block in blocks:
        addresses = public_addresses_of(block.network) if block.network else 0
        if addresses:
            ends_at = bucket_of(block.expires_at)
            if ends_at > now:  # a bucket that ended counts no more (and may be gone)
                db.session.execute(_CHANGE, {"bucket": ends_at, "change": -addresses})


def counts(blocks):
    """True when any of these blocks covers public IPv4 addresses (lifting it changes what is covered)."""
    return any(block.network and public_addresses_of(block.network) for block in blocks)


def count_by_bucket(rows):
    """``{bucket: public addresses}`` of ``(network, expires_at)`` rows of active blocks (``expires_at`` a
    datetime, its ISO text as SQLite keeps it, or None)."""
    per_expiry = defaultdict(int)  # a list's blocks share their expiry: few keys, each read once below
    for network, expires_at in rows:
        per_expiry[expires_at] += public_addresses_of(network)
    buckets = defaultdict(int)
    for expires_at, addresses in per_expiry.items():
        if addresses:
            buckets[bucket_of(datetime.fromisoformat(expires_at) if isinstance(expires_at, str) else expires_at)] \
                += addresses
    return dict(buckets)


_ACTIVE_IPV4 = ("SELECT network, expires_at FROM blocks WHERE network IS NOT NULL AND network NOT LIKE '%:%' "
                "AND lifted_at IS NULL AND (expires_at IS NULL OR expires_at > ?)")


def active_ipv4_rows(connection, now):
    """``(network, expires_at as stored)`` of every active IPv4 block, read through the driver of
    ``connection`` (a SQLAlchemy Connection): a million rows through the ORM's row handling cost
    several times more than reading them."""
    dialect, driver = connection.dialect, connection.connection.driver_connection
    if dialect.name == "postgresql":
        cursor = driver.cursor()
        cursor.execute(_ACTIVE_IPV4.replace("%", "%%").replace("?", "%s"), (now,))
        return cursor
    bound = Block.__table__.c.expires_at.type.dialect_impl(dialect).bind_processor(dialect)
    return driver.execute(_ACTIVE_IPV4, (bound(now) if bound else now,))


def _count_from_blocks(now):
    """Count again, from the active blocks, what they cover by expiry hour (gate held)."""
    db.session.execute(delete(_BUCKETS))
    buckets = count_by_bucket(active_ipv4_rows(db.session.connection(), now))
    if buckets:
        db.session.execute(BlockCoverage.__table__.insert(), [
            {"ends_at": ends_at, "addresses": addresses} for ends_at, addresses in buckets.items()])
    log.info("coverage of the public IPv4 space counted from the blocks: %s addresses", sum(buckets.values()))
    return sum(buckets.values())


def recount():
    """Count what the active blocks cover again from the blocks themselves (``flask blocks coverage --recount``).

    For blocks written by something that does not keep the count: a node of the previous release during a
    rolling upgrade, a hand-written SQL statement. Returns the addresses covered.
    """
    return covered() if pass_block_gate() else _count_from_blocks(clock.utcnow())
