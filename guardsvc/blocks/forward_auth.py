"""Forward auth: a reverse proxy asks, before each request, whether the original client may pass.

nginx ``auth_request``, Traefik ForwardAuth and Caddy ``forward_auth`` send a
sub-request carrying the original request's headers. The answer is 204 (pass)
or 403 (blocked, with the reference in ``X-Guardsvc-Reference`` so the proxy
can show ``/terblokir?ref=...``). A browser's request (``Accept`` prefers
``text/html``) is answered the block page itself with its 403, so Caddy and
Traefik, which pass a refusal through as it is, show it without an error
handler of their own; other clients get the JSON. It sits in front of every request of the
guarded applications, so it loads no session, checks no CSRF token and runs
the one block lookup, nothing more.
"""
import hmac

from flask import Blueprint, current_app, render_template, request, url_for

from guardsvc import messages
from guardsvc.web.addresses import client_ip
from guardsvc.blocks.service import find_active_block
from guardsvc.web.errors import Blocked, Unauthorized
from guardsvc.web.identity import cookie_device_id, identity_headers, set_new_device_cookie
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.operations import BLOCKED_ERROR, Failure, operation
from guardsvc.metrics import counters as metrics
from guardsvc.blocks.api import BLOCKS

# The proxy's sub-request judges someone else: it is never guarded itself.
bp = never_guarded(json_door(Blueprint("forward_auth", __name__, url_prefix="/api/guard")))

SECRET_HEADER = "X-Guardsvc-Secret"
REFERENCE_HEADER = "X-Guardsvc-Reference"


def check_proxy_caller():
    """Only the proxy asks: it presents the shared secret, compared in constant time.

    There is always a secret (the setting, or one generated into the instance folder): a caller's
    address proves nothing, since behind a proxy on the same host every visitor arrives from loopback.
    """
    expected = current_app.config["FORWARD_AUTH_SECRET"] or ""
    given = request.headers.get(SECRET_HEADER, "")
    if not (expected and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))):
        raise Unauthorized(messages.FORWARD_AUTH_SECRET_INVALID)


def _wants_page():
    """The original request came from a browser: it prefers HTML to JSON."""
    return request.accept_mimetypes.best_match(("application/json", "text/html")) == "text/html" and \
        request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]


@bp.get("/forward-auth")
@operation("forwardAuth", "Forward auth untuk reverse proxy: boleh lewat (204) atau diblokir (403)", BLOCKS,
           {204: None}, identity=True,
           errors={400: "Alamat yang diteruskan proksi tidak terbaca.",
                   401: "Rahasia X-Guardsvc-Secret tidak ada atau salah (`flask edge secret` mencetaknya).",
                   403: Failure("Klien asli diblokir; proksi menampilkan /terblokir?ref=...", (BLOCKED_ERROR,))},
           description="Klien asli dibaca dari header proksi (GUARDSVC_PROXY_COUNT) dan cookie perangkat. "
                       "Peramban (`Accept` mengutamakan `text/html`) mendapat halaman blokir HTML itu sendiri "
                       "dengan status 403; klien lain mendapat JSON di bawah.")
def forward_auth():
    """Proxy sub-request: 204 when the original client may pass, 403 when it is blocked."""
    check_proxy_caller()
    ip_address = client_ip()  # ProxyFix has taken the entry GUARDSVC_PROXY_COUNT trusts
    device_id, local_ip = identity_headers()
    cookie_id = cookie_device_id()
    block = find_active_block(ip_address, device_id or cookie_id, local_ip)
    metrics.FORWARD_AUTH.labels("blocked" if block is not None else "pass").inc()
    if block is not None:
        if _wants_page():
            page = render_template("blocks/blocked.html", block=block)
            return page, 403, {REFERENCE_HEADER: block.reference, "Cache-Control": "no-store"}
        error = Blocked(block, url_for("appeal_pages.appeal_form", ref=block.reference))
        error.headers[REFERENCE_HEADER] = block.reference
        raise error
    response = current_app.response_class(status=204)
    if device_id is None and cookie_id is None:
        # A browser meeting the guarded site for the first time gets its device
        # id here; the proxy copies this Set-Cookie onto the page it serves.
        set_new_device_cookie(response)
    return response
