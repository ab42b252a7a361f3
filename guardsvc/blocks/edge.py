"""The edge list: every active block, in the form a proxy's Lua module matches without asking.

nginx (``deploy/nginx/guardsvc_edge.lua``) pulls this list every second and
lets a request through on its own when neither the client's address nor its
device id can be under a block. Anything the list might match goes to forward
auth, which applies every rule (allow entries, approvals, local-IP narrowing).
So the list only has to be a superset of what blocks: it leaves out allow
entries and the local-IP narrowing, and a range with an allowed address in it
sends that address to forward auth, which lets it pass.

One line per block, sorted, so the same blocks give the same text (its hash is
the ETag, and an unchanged list is answered 304 with no body)::

    n 4/24/c0a801 1767225600     a network: version/prefix length/leading hex digits, expiry
    d 6f1c...-uuid 0             a device id, expiry (0: none)

A network's key is the hex of its address cut to ceil(prefix/4) digits (host
bits are zero in a canonical network), which the Lua side rebuilds for each
prefix length the list holds with one mask of the last digit: no address text,
no IPv6 compression rules to agree on.
"""
import hashlib
import ipaddress
import math
from datetime import timezone

from sqlalchemy import select

from guardsvc.blocks.models import Block
from guardsvc.blocks.service import active_condition
from guardsvc.extensions import db
from guardsvc.storage import clock


def network_key(network):
    """``"192.168.1.0/24"`` -> ``"4/24/c0a801"``; IPv4-mapped IPv6 is stored as IPv4 already."""
    parsed = ipaddress.ip_network(network)
    width = 8 if parsed.version == 4 else 32
    digits = f"{int(parsed.network_address):0{width}x}"[:math.ceil(parsed.prefixlen / 4)]
    return f"{parsed.version}/{parsed.prefixlen}/{digits}"


def _expiry(expires_at):
    """Unix seconds, rounded up (the edge keeps an entry until it has surely expired); 0 for never."""
    if expires_at is None:
        return 0
    return math.ceil(expires_at.replace(tzinfo=timezone.utc).timestamp())


def edge_list():
    """(text, etag) of every block active now."""
    rows = db.session.execute(select(Block.network, Block.device_id, Block.expires_at)
                              .where(active_condition(clock.utcnow()))).all()
    lines = sorted(f"n {network_key(row.network)} {_expiry(row.expires_at)}" if row.network is not None
                   else f"d {row.device_id} {_expiry(row.expires_at)}" for row in rows)
    text = "".join(line + "\n" for line in lines)
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
