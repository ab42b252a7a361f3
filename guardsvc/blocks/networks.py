"""Pure IP arithmetic for blocks: canonical network text and the prefixes containing an address.

The text ``parse_network`` reads is ``guardsvc.web.ip_grammar.NETWORK`` (host bits aside), the pattern
the API document gives every range field; ``tests/web/test_ip_grammar.py`` holds the two together.
"""
import ipaddress
import re
import socket
from functools import lru_cache


class ZoneIdGiven(ValueError):
    """An IPv6 address with a zone id (``fe80::1%eth0``): it names a link of one machine, never a client."""


def canonical_network(text):
    """``"10.1.2.3"`` -> ``"10.1.2.3/32"``; ``"10.1.2.0/24"`` stays; host bits are refused.

    IPv4-mapped IPv6 ranges (``::ffff:10.0.0.0/104``) become their IPv4 range,
    because client addresses are normalized the same way.
    Raises ValueError for anything that is not an address or a network, and
    ZoneIdGiven (a ValueError) for a zone id: client addresses never carry one,
    so a block or allow entry holding it would never match anyone.
    """
    return parse_network(text).with_prefixlen


def parse_network(text):
    """The ``ip_network`` whose text ``canonical_network`` gives (IPv4-mapped ranges as IPv4); ValueError else."""
    if not isinstance(text, str):
        raise ValueError("not a string")
    network = ipaddress.ip_network(text.strip(), strict=True)
    if getattr(network.network_address, "scope_id", None) is not None:
        raise ZoneIdGiven(text)
    if isinstance(network, ipaddress.IPv6Network) and network.prefixlen >= 96:
        mapped = network.network_address.ipv4_mapped
        if mapped is not None:
            network = ipaddress.ip_network(f"{mapped}/{network.prefixlen - 96}")
    return network


@lru_cache(maxsize=256)
def candidate_networks(ip_address):
    """Every network that contains ``ip_address``, as canonical text: one per prefix length.

    Looking these up in an index costs the same whatever the size of the
    block list (33 keys for IPv4, 129 for IPv6). The guard asks for this on
    every request, so the text is built from integer masks directly
    (``str()`` of 129 IPv6Address objects costs about a millisecond), and the
    last few clients are remembered. It is the same text ``ipaddress`` gives,
    which is what ``canonical_network`` stores.
    """
    address = ipaddress.ip_address(ip_address)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    value = int(address)
    if address.version == 4:
        return tuple(f"{_ipv4_text(value & ~((1 << (32 - length)) - 1))}/{length}"
                     for length in range(32, -1, -1))
    groups = [(value >> shift) & 0xFFFF for shift in range(112, -1, -16)]
    hextets = [f"{group:x}" for group in groups]
    result = [f"{_compress(hextets)}/128"]
    for length in range(127, -1, -1):
        index, bits = divmod(length, 16)
        kept = groups[index] & ~((1 << (16 - bits)) - 1) & 0xFFFF
        result.append(f"{_compress(hextets[:index] + [f'{kept:x}'] + ['0'] * (7 - index))}/{length}")
    return tuple(result)


def _ipv4_text(value):
    return f"{value >> 24}.{(value >> 16) & 255}.{(value >> 8) & 255}.{value & 255}"


def _compress(hextets):
    """RFC 5952 text, as ``ipaddress`` writes it: the longest run (>= 2) of zero groups, leftmost, is ``::``."""
    best_start, best_length, run_start, run_length = -1, 0, 0, 0
    for index, hextet in enumerate(hextets):
        if hextet != "0":
            run_length = 0
            continue
        if run_length == 0:
            run_start = index
        run_length += 1
        if run_length > best_length:
            best_start, best_length = run_start, run_length
    if best_length < 2:
        return ":".join(hextets)
    return ":".join(hextets[:best_start]) + "::" + ":".join(hextets[best_start + best_length:])


def is_single_address(network):
    """True when the canonical ``network`` holds exactly one address (/32 or /128)."""
    return (network.endswith("/32") and ":" not in network) or network.endswith("/128")


def display_target(network):
    """``"203.0.113.7/32"`` -> ``"203.0.113.7"``; ranges keep their prefix."""
    return network.rsplit("/", 1)[0] if is_single_address(network) else network


# Why the rule below refuses a network.
TOO_WIDE, NEVER_BLOCKED = "too_wide", "never_blocked"


class BlockBounds:
    """No list can take the world down: the one rule on which networks a block may cover.

    A block wider than ``widest`` (shortest prefix for IPv4, for IPv6) would
    answer 403 to a country or to everyone; a block touching one of ``never``
    (loopback by default) would shut out the service's own host. Every source
    of blocks (CLI, API, admin pages, import, CrowdSec) asks ``refusal``.
    """

    def __init__(self, widest=(8, 32), never=()):
        self.widest = {4: widest[0], 6: widest[1]}
        # (version, first address, last address) as integers: two comparisons for each network asked about.
        self.never = tuple((parsed.version, int(parsed.network_address), int(parsed.broadcast_address),
                            parsed.with_prefixlen) for parsed in map(ipaddress.ip_network, never))

    def refusal(self, network):
        """``None`` when a block may cover ``network`` (an ``ip_network``), else ``(TOO_WIDE, widest prefix)``
        or ``(NEVER_BLOCKED, the never-blocked network it touches)``."""
        return self.refusal_of(network.version, int(network.network_address), network.prefixlen)

    def refusal_of(self, version, first, prefixlen):
        """``refusal`` of the network of ``version`` starting at the integer ``first`` with ``prefixlen``."""
        widest = self.widest[version]
        if prefixlen < widest:
            return TOO_WIDE, widest
        if self.never:
            last = first | ((1 << ((32 if version == 4 else 128) - prefixlen)) - 1)
            for never_version, low, high, text in self.never:
                if never_version == version and first <= high and low <= last:
                    return NEVER_BLOCKED, text
        return None


# A canonical IPv4 address (no leading zeros) and an optional prefix length: most lines of a list.
_CANONICAL_IPV4 = re.compile(r"((?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))"
                             r"(?:/(3[0-2]|[12]?\d))?")


def fast_network(text):
    """``(canonical text, version, first address as an integer, prefix length)`` of an address or range.

    The same answer as ``parse_network`` (ValueError for the same texts), a few
    times faster for the canonical IPv4 text most lists hold: a million lines
    of a blocklist are read in a few seconds.
    """
    match = _CANONICAL_IPV4.fullmatch(text)
    if match is None:
        network = parse_network(text)
        return network.with_prefixlen, network.version, int(network.network_address), network.prefixlen
    address, length = match.groups()
    first = int.from_bytes(socket.inet_aton(address), "big")
    prefixlen = 32 if length is None else int(length)
    if first & ((1 << (32 - prefixlen)) - 1):
        raise ValueError(f"{text} has host bits set")
    return f"{address}/{prefixlen}", 4, first, prefixlen
