"""Whether browsers can use passkeys at all at the service's address, and why not.

A browser offers WebAuthn only in a secure context (``https://``, or
``http://localhost``) and accepts only a domain as relying party id, never an
IP address. Such an address is a setting to fix, not a person's mistake: it is
reported once at start with the fix, and the passkey buttons explain it
instead of starting a ceremony that can only fail.
"""
import ipaddress
import logging
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import current_app

log = logging.getLogger(__name__)

IP_ADDRESS = "ip_address"
NOT_SECURE = "not_secure"
_LOOPBACK_NAMES = ("localhost",)
_OBSTACLE = "guardsvc.passkey_obstacle"


@dataclass(frozen=True)
class Obstacle:
    """Why passkeys cannot work at ``base_url``: ``kind`` (IP_ADDRESS or NOT_SECURE), the host, the fix."""

    kind: str
    host: str
    base_url: str
    suggested_base_url: str | None


def _is_ip(host):
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _is_localhost(host):
    return host in _LOOPBACK_NAMES or host.endswith(".localhost")


def _localhost_instead(parts):
    """The same address with ``localhost`` for a loopback IP (what to browse on one's own machine), else None."""
    try:
        loopback = ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return None
    if not loopback:
        return None
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://localhost{port}{parts.path}"


def find_obstacle(base_url, rp_id=None):
    """The Obstacle that keeps every browser from using passkeys at ``base_url`` (and ``rp_id``), or None."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if _is_ip(host) or (rp_id and _is_ip(rp_id)):
        return Obstacle(IP_ADDRESS, host, base_url, _localhost_instead(parts))
    if parts.scheme != "https" and not _is_localhost(host):
        return Obstacle(NOT_SECURE, host, base_url, None)
    return None


def passkey_obstacle():
    """This app's Obstacle (worked out at start), or None: for the passkey buttons."""
    return current_app.extensions.get(_OBSTACLE)


def check_address_at_start(app):
    """Work out whether passkeys can work at ``GUARDSVC_BASE_URL``; when not, say so in the log with the fix."""
    obstacle = find_obstacle(app.config["BASE_URL"], app.config.get("WEBAUTHN_RP_ID"))
    app.extensions[_OBSTACLE] = obstacle
    if obstacle is None:
        return
    if obstacle.kind == IP_ADDRESS:
        fix = (f"set GUARDSVC_BASE_URL={obstacle.suggested_base_url} and open that address (the server may "
               "still bind 127.0.0.1)" if obstacle.suggested_base_url
               else "set GUARDSVC_BASE_URL to an address with a domain name (https://...)")
        log.warning("GUARDSVC_BASE_URL %s names an IP address: browsers accept passkeys only at a domain name, "
                    "so the passkey buttons explain this instead of working. To use passkeys, %s.",
                    obstacle.base_url, fix)
    else:
        log.warning("GUARDSVC_BASE_URL %s is not https: browsers offer passkeys only at https:// addresses "
                    "(and http://localhost), so the passkey buttons explain this instead of working. To use "
                    "passkeys, serve guardsvc over https and set GUARDSVC_BASE_URL to that address.",
                    obstacle.base_url)
