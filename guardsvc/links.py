"""Links that leave the request (e-mails): ``url_for``'s rules on ``GUARDSVC_BASE_URL``.

Inside a request ``url_for(..., _external=True)`` would take the host from the
request's Host header, which a client chooses; outside one (the CLI deciding a
ticket) it cannot build at all without SERVER_NAME, which would also change
how requests are routed. So messages build their links on the configured
base URL, with the same URL map, in and out of requests alike.
"""
from urllib.parse import quote, urlsplit

from flask import current_app


def external_url(endpoint, **values):
    """Absolute URL of ``endpoint`` under GUARDSVC_BASE_URL (``_anchor`` adds a fragment)."""
    anchor = values.pop("_anchor", None)
    base = urlsplit(current_app.config["BASE_URL"])
    adapter = current_app.url_map.bind(base.netloc, script_name=base.path or "/", url_scheme=base.scheme)
    url = adapter.build(endpoint, values, force_external=True)
    return f"{url}#{quote(anchor)}" if anchor else url
