"""Pure IP arithmetic for blocks: canonical network text and the prefixes containing an address."""
import ipaddress
from functools import lru_cache


def canonical_network(text):
    """``"10.1.2.3"`` -> ``"10.1.2.3/32"``; ``"10.1.2.0/24"`` stays; host bits are refused.

    IPv4-mapped IPv6 ranges (``::ffff:10.0.0.0/104``) become their IPv4 range,
    because client addresses are normalized the same way.
    Raises ValueError for anything that is not an address or a network.
    """
    if not isinstance(text, str):
        raise ValueError("not a string")
    network = ipaddress.ip_network(text.strip(), strict=True)
    if isinstance(network, ipaddress.IPv6Network) and network.prefixlen >= 96:
        mapped = network.network_address.ipv4_mapped
        if mapped is not None:
            network = ipaddress.ip_network(f"{mapped}/{network.prefixlen - 96}")
    return network.with_prefixlen


@lru_cache(maxsize=8192)
def candidate_networks(ip_address):
    """Every network that contains ``ip_address``, as canonical text: one per prefix length.

    Looking these up in an index costs the same whatever the size of the
    block list (33 keys for IPv4, 129 for IPv6). Computed with integer masks
    and memoised, because the guard asks for it on every request.
    """
    address = ipaddress.ip_address(ip_address)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    width = address.max_prefixlen
    value = int(address)
    full = (1 << width) - 1
    kind = type(address)
    result = []
    for length in range(width, -1, -1):
        mask = full ^ ((1 << (width - length)) - 1)
        result.append(f"{kind(value & mask)}/{length}")
    return tuple(result)


def is_single_address(network):
    """True when the canonical ``network`` holds exactly one address (/32 or /128)."""
    return (network.endswith("/32") and ":" not in network) or network.endswith("/128")


def display_target(network):
    """``"203.0.113.7/32"`` -> ``"203.0.113.7"``; ranges keep their prefix."""
    return network.rsplit("/", 1)[0] if is_single_address(network) else network
