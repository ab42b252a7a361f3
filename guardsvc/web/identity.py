"""Who is calling: client IP (behind N trusted proxies), device id, local IP."""
import hashlib
import re
import uuid
from dataclasses import dataclass

from flask import after_this_request, current_app, g, request

from guardsvc import messages
from guardsvc.web.addresses import client_ip, normalize_ip  # noqa: F401 (re-exported)
from guardsvc.web.cookies import service_cookie_path
from guardsvc.web.doors import is_browser_page
from guardsvc.web.errors import ValidationFailed
from guardsvc.web.headers import request_header

DEVICE_ID_RE = re.compile(r"\A[A-Za-z0-9._:-]{1,64}\Z")
DEVICE_HEADER = "X-Device-Id"
LOCAL_IP_HEADER = "X-Local-Ip"
USER_AGENT_MAX = 255


def digest(value):
    """SHA-256 (hex) of a service-issued secret: what is stored and compared, never the value."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def fingerprint(value):
    """What people see of a service-issued device cookie: the first 8 hex characters of its SHA-256."""
    return digest(value)[:8]


def device_fingerprint(device_id):
    """A device id as events sent out of the service name it (webhooks): always its fingerprint, whoever
    named it. An id typed in by an administrator may be a browser's device cookie copied from somewhere,
    and a receiver of events is not shown secrets; it can fingerprint a name it knows to match."""
    return fingerprint(device_id) if device_id else None


def device_label(device_id, issued):
    """A device id as pages, listings and e-mails show it: a fingerprint when the service issued it
    (the device cookie's value is a secret), the id itself when a client named it (``X-Device-Id``)."""
    if not device_id:
        return None
    return fingerprint(device_id) if issued else device_id


def is_valid_device_id(value):
    return isinstance(value, str) and bool(DEVICE_ID_RE.match(value))


TRUST_SECRET_RE = re.compile(r"\A[A-Za-z0-9_-]{32,128}\Z")


@dataclass(frozen=True)
class Client:
    """Everything the service knows about the caller of one request.

    ``device_id`` is a label (an ``X-Device-Id`` header wins over the cookie) and
    proves nothing. ``device_cookie`` is the service-issued device cookie alone and
    ``trust_secret`` the secret of "Percayai perangkat ini": both were issued by the
    service, so they, never the label, may recognise a browser.
    """

    ip_address: str
    device_id: str | None
    local_ip: str | None
    user_agent: str | None
    device_cookie: str | None = None
    trust_secret: str | None = None


def _header_device_id(errors):
    raw = request_header(DEVICE_HEADER)
    if raw is None:
        return None
    value = raw.strip()
    if not is_valid_device_id(value):
        errors[DEVICE_HEADER] = [messages.FIELD_BAD_DEVICE_ID]
        return None
    return value


def _header_local_ip(errors):
    raw = request_header(LOCAL_IP_HEADER)
    if raw is None:
        return None
    try:
        return normalize_ip(raw)
    except ValueError:
        errors[LOCAL_IP_HEADER] = [messages.FIELD_BAD_IP]
        return None


def cookie_device_id():
    """The device id carried by the long-lived browser cookie, if it is well formed."""
    value = request.cookies.get(current_app.config["DEVICE_COOKIE_NAME"])
    return value if is_valid_device_id(value) else None


def trust_secret_cookie():
    """The trust secret the browser presents, if it is well formed."""
    value = request.cookies.get(current_app.config["TRUST_COOKIE_NAME"])
    return value if isinstance(value, str) and TRUST_SECRET_RE.match(value) else None


def identity_headers():
    """(device id, local IP) from X-Device-Id / X-Local-Ip; ValidationFailed (422) when malformed."""
    errors = {}
    device_id = _header_device_id(errors)
    local_ip = _header_local_ip(errors)
    if errors:
        raise ValidationFailed(errors)
    return device_id, local_ip


def current_client():
    """Describe the caller; raises ValidationFailed (422) for malformed identity headers."""
    if "guardsvc_client" in g:
        return g.guardsvc_client
    device_id, local_ip = identity_headers()
    device_cookie = cookie_device_id()
    if device_id is None:
        device_id = device_cookie
    user_agent = request_header("User-Agent") or None
    if user_agent is not None:
        user_agent = user_agent[:USER_AGENT_MAX]
    g.guardsvc_client = Client(client_ip(), device_id, local_ip, user_agent, device_cookie,
                               trust_secret_cookie())
    return g.guardsvc_client


def issue_device_cookie(response):
    """Give a browser a stable device id (HttpOnly, SameSite=Lax) when it has none.

    Only pages get one: JSON doors (the API, the probes) and static files never do.
    """
    if not is_browser_page():
        return response
    if cookie_device_id() is not None or _ISSUED in g:
        return response
    return set_new_device_cookie(response)


_ISSUED = "guardsvc_issued_device"


def device_to_issue():
    """The device id this response will give a browser that has none (one per request), so a page can
    already use it (bind a challenge to it); the cookie goes out with the response."""
    if _ISSUED not in g:
        g.setdefault(_ISSUED, str(uuid.uuid4()))
        after_this_request(lambda response: set_new_device_cookie(response, g.get(_ISSUED)))
    return g.get(_ISSUED)


def set_new_device_cookie(response, value=None):
    """Set a new device id cookie on ``response``; its domain and path are configurable
    so that one id covers every application guarded behind the same proxy."""
    config = current_app.config
    response.set_cookie(
        config["DEVICE_COOKIE_NAME"],
        value or str(uuid.uuid4()),
        max_age=config["DEVICE_COOKIE_DAYS"] * 24 * 3600,
        domain=config["DEVICE_COOKIE_DOMAIN"],
        path=config["DEVICE_COOKIE_PATH"],
        httponly=True,
        samesite="Lax",
        secure=config["SESSION_COOKIE_SECURE"],
    )
    return response


def issue_trust_cookie(secret):
    """Send ``secret`` to this browser as its trust secret (HttpOnly, SameSite=Strict, guardsvc's path).

    It lasts as long as sign-in trust does (``TRUST_LIFETIME_DAYS``; 0, until
    revoked: the browser's longest). Only its hash is kept by the service.
    """
    config = current_app.config

    @after_this_request
    def _set(response):
        days = config["TRUST_LIFETIME_DAYS"] or config["DEVICE_COOKIE_DAYS"]
        response.set_cookie(config["TRUST_COOKIE_NAME"], secret, max_age=days * 24 * 3600,
                            path=service_cookie_path(current_app),
                            httponly=True, samesite="Strict", secure=config["SESSION_COOKIE_SECURE"])
        return response
