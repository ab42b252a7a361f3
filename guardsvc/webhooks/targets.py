"""Where a webhook may go: a public address, unless the operator allows private ones.

A webhook makes guardsvc send requests of its own, from inside the network it runs
in. Without a rule, whoever can add an endpoint (or whoever controls the DNS of an
endpoint's host) could aim those requests at the host's loopback services, the
cloud's metadata service (credentials, at 169.254.169.254 and alike) or the private
network. So an address is a webhook target only when it is globally routable: not
loopback, link-local (169.254/16, fe80::/10), private (RFC 1918, fc00::/7), shared
(100.64/10), unspecified, reserved, documentation or multicast, and not one of the
cloud metadata addresses that lie outside those ranges. An IPv6 address that carries
an IPv4 one (``::ffff:a.b.c.d``, NAT64, 6to4) is judged by the IPv4 address. Four IPv6
forms are refused whatever they carry, as a translator or an old rule can take them
to a private IPv4 address or a local network, and the interpreter's ``is_global``
knows them or not depending on its version: local-use NAT64 (``64:ff9b:1::/48``),
SIIT's IPv4-translated addresses (``::ffff:0:a.b.c.d``), IPv4-compatible addresses
(``::a.b.c.d``) and site-local addresses (``fec0::/10``).

It is checked when an endpoint is added (an address, or a name that resolves to
one) and again at every delivery, on the addresses the name resolves to then (the
DNS may change: rebinding), and the request goes to exactly the address that was
checked. ``GUARDSVC_WEBHOOK_ALLOW_PRIVATE_TARGETS=true`` turns the rule off, for a
receiver on the same host or network.
"""
import ipaddress
import socket

# Metadata and platform services that answer from addresses outside the ranges above.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(text) for text in (
    "168.63.129.16",  # Azure's platform (wire) server
))
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Never targets, whatever IPv4 address they carry and whatever ``is_global`` says of them.
REFUSED_IPV6 = tuple(ipaddress.ip_network(text) for text in (
    "64:ff9b:1::/48",  # local-use NAT64 (RFC 8215): a translator of the local network's own
    "::ffff:0:0:0/96",  # IPv4-translated (SIIT, RFC 2765)
    "::/96",  # IPv4-compatible (deprecated by RFC 4291), with the unspecified and loopback addresses
    "fec0::/10",  # site-local (deprecated by RFC 3879): the site's own network
))
_DEFAULT_PORTS = {"http": 80, "https": 443}


class PrivateTarget(Exception):
    """The host is, or resolves to, an address that is not a webhook target."""

    def __init__(self, host, address):
        # (The setting's name is not in it: the log's redaction takes such long runs for secrets.)
        super().__init__(f"{host} is a private address ({address}) and private webhook targets are not allowed")
        self.host, self.address = host, address


def _carried(address):
    """The IPv4 address an IPv6 one carries (mapped, NAT64, 6to4), else the address itself."""
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def is_public(text):
    """True when ``text`` (an IP address, an IPv6 zone id allowed) is a globally routable unicast address."""
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if address.version == 6 and any(address in network for network in REFUSED_IPV6):
        return False
    address = _carried(address)
    return address.is_global and not address.is_multicast and address not in METADATA_ADDRESSES


def literal_address(host):
    """``host`` as an IP address when it is one (brackets and zone id taken off), else None."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def default_port(scheme):
    return _DEFAULT_PORTS[scheme]


def resolve(host, port):
    """The addresses ``host`` resolves to now (an address resolves to itself); OSError when none."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in found))


def public_addresses(host, port):
    """The addresses of ``host``, each checked: PrivateTarget when any is not public, OSError when none.

    Every address must be public, not just one: a client may connect to any of them.
    """
    addresses = resolve(host, port)
    for address in addresses:
        if not is_public(address):
            raise PrivateTarget(host, address)
    return addresses


def check_new_target(host, port):
    """At ``webhooks add``: PrivateTarget for an address or a name that resolves to one that is not public.

    A name that does not resolve yet is accepted: its receiver may not exist yet,
    and every delivery checks again.
    """
    address = literal_address(host)
    if address is not None:
        if not is_public(str(address)):
            raise PrivateTarget(host, address)
        return
    try:
        public_addresses(host, port)
    except OSError:
        return
