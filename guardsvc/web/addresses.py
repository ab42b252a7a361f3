"""IP address text: one normalized form, and the address of the current request's client.

The client IP is the TCP peer. ``X-Forwarded-For`` only counts when the
operator sets ``GUARDSVC_PROXY_COUNT`` (werkzeug's ProxyFix then rewrites
``remote_addr`` from exactly that many trusted hops).
"""
import ipaddress

from flask import current_app, request

# Read once per request, kept with the request (not in g, which an outer app context shares).
_CLIENT_IP = "guardsvc.client_ip"


class UnreadableForwardedAddress(ValueError):
    """A trusted proxy forwarded a client address that does not parse (answered 400)."""


def normalize_ip(value):
    """Return the canonical text of an IP address (IPv4-mapped IPv6 becomes IPv4).

    Raises ValueError when ``value`` is not an IP address.
    """
    if not isinstance(value, str):
        raise ValueError("not a string")
    text = value.strip()
    if "%" in text:  # zone ids say nothing about the host
        text = text.split("%", 1)[0]
    address = ipaddress.ip_address(text)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def client_ip():
    """The normalized client IP of the current request.

    Behind trusted proxies (``PROXY_COUNT``) the address is the forwarded
    entry ProxyFix took, a port allowed; one that does not parse raises
    UnreadableForwardedAddress: a stand-in would merge strangers into one
    identity and slip past IP blocks.
    """
    environ = request.environ
    cached = environ.get(_CLIENT_IP)
    if cached is None:
        cached = environ[_CLIENT_IP] = _read_client_ip()
    return cached


def counted_address(ip_address):
    """The address a per-address limit counts: an IPv6 client by its /64, an IPv4 one by itself.

    One IPv6 subscriber gets a whole /64 and can use a new address per request.
    """
    address = ipaddress.ip_address(ip_address)
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return ip_address


def _read_client_ip():
    raw = request.remote_addr or ""
    if current_app.config.get("PROXY_COUNT", 0) > 0 and raw:
        try:
            return forwarded_address(raw)
        except ValueError as exc:
            raise UnreadableForwardedAddress(raw) from exc
    try:
        return normalize_ip(raw)
    except ValueError:
        # A Unix socket peer has no address at all (no proxy in front: nobody chose it).
        return "0.0.0.0"


def forwarded_address(value):
    """The address of one trusted forwarded entry, a port allowed.

    ``203.0.113.7``, ``203.0.113.7:5123``, ``2001:db8::1`` and
    ``[2001:db8::1]:443`` all name a client; anything else raises ValueError,
    because a stand-in address would merge strangers into one identity.
    """
    if not isinstance(value, str):
        raise ValueError("not a string")
    text = value.strip()
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            raise ValueError("malformed bracketed address")
        return normalize_ip(host)
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        if not port.isdigit():
            raise ValueError("malformed port")
        text = host
    return normalize_ip(text)


def require_readable_address():
    """before_request: a forwarded client address that does not parse is answered 400 at once."""
    client_ip()
