"""Links that leave the request (e-mails): ``url_for``'s rules on ``GUARDSVC_BASE_URL``.

Inside a request ``url_for(..., _external=True)`` would take the host from the
request's Host header, which a client chooses; outside one (the CLI deciding a
ticket) it cannot build at all without SERVER_NAME, which would also change
how requests are routed. So messages build their links on the configured
base URL, with the same URL map, in and out of requests alike.
"""
from urllib.parse import quote, urlsplit

from flask import current_app


_ADAPTER = "guardsvc.web.links"  # app.extensions: (base URL, URL map adapter bound to it)


def _adapter(app):
    """The app's URL map bound to GUARDSVC_BASE_URL: bound once, again only when the setting changes."""
    base = app.config["BASE_URL"]
    cached = app.extensions.get(_ADAPTER)
    if cached is None or cached[0] != base:
        parts = urlsplit(base)
        cached = app.extensions[_ADAPTER] = (
            base, app.url_map.bind(parts.netloc, script_name=parts.path or "/", url_scheme=parts.scheme))
    return cached[1]


def external_url(endpoint, **values):
    """Absolute URL of ``endpoint`` under GUARDSVC_BASE_URL (``_anchor`` adds a fragment)."""
    anchor = values.pop("_anchor", None)
    url = _adapter(current_app).build(endpoint, values, force_external=True)
    return f"{url}#{quote(anchor)}" if anchor else url
