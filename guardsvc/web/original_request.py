"""The page a visitor asked for before a proxy stopped them: for "back to the page you wanted".

Proxies name it in forward auth's sub-request and on the block page they fetch:
nginx as ``X-Original-URL`` (an absolute URL or a path), Traefik and Caddy as
``X-Forwarded-Host`` + ``X-Forwarded-Uri``. Only the path is ever used for a
link, and only a path that stays on the same host (``/...``, never ``//host`` or
``/\\host``): guardsvc's pages are served on the guarded host, so a root-relative
link leads back there and can never lead anywhere else, whoever wrote the header.
The host is kept apart, for the record of which site a ticket came from.
"""
import re
from urllib.parse import urlsplit

from flask import request

PATH_MAX = 1000
_PATH = re.compile(r"\A/(?![/\\])[\x21-\x7e]*\Z")
_HOST = re.compile(r"\A(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?\Z")


def safe_path(value):
    """``value`` when it is a same-host path a link may lead to, else None."""
    if not isinstance(value, str) or len(value) > PATH_MAX or not _PATH.match(value):
        return None
    return value


def safe_host(value):
    return value.lower() if isinstance(value, str) and _HOST.match(value) else None


def original_page():
    """(host, path) of the page the proxy says the visitor asked for; either may be None."""
    url = request.headers.get("X-Original-URL")
    if url:
        if url.startswith("/"):
            return safe_host(request.headers.get("X-Forwarded-Host")), safe_path(url)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return None, None
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        return safe_host(parts.netloc), safe_path(path)
    return (safe_host(request.headers.get("X-Forwarded-Host")),
            safe_path(request.headers.get("X-Forwarded-Uri")))
