"""IP address text: one normalized form, and the address of the current request's client.

The client IP is the TCP peer. ``X-Forwarded-For`` only counts when the
operator sets ``GUARDSVC_PROXY_COUNT`` (werkzeug's ProxyFix then rewrites
``remote_addr`` from exactly that many trusted hops).
"""
import ipaddress

from flask import request


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
    """The normalized client IP of the current request."""
    try:
        return normalize_ip(request.remote_addr or "")
    except ValueError:
        # Unix sockets and test clients may give no address at all.
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
