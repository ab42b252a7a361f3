"""Webhook endpoints (added, listed, removed) and events queued for them in the caller's transaction.

An event is queued by the feature where it happens (``queue_event``), in the
transaction of what it reports: it is sent if and only if that commits. With
no endpoint subscribed to an event type, queueing it costs no statement: each
process keeps the set of subscribed event types and reads it again at most
every ``GUARDSVC_WEBHOOK_REFRESH_SECONDS``, so an endpoint added by another
process receives events from at most that long after it was added.
"""
import base64
import json
import secrets
import time
from urllib.parse import urlsplit

from flask import current_app
from sqlalchemy import delete, func, insert, literal, select

from guardsvc import messages
from guardsvc.extensions import db
from guardsvc.storage import clock
from guardsvc.storage.sealing import reseal_rows
from guardsvc.web.errors import NotFound, ValidationFailed
from guardsvc.webhooks.models import EVENTS, HookDelivery, WebhookEndpoint
from guardsvc.webhooks.targets import PrivateTarget, check_new_target, default_port

URL_MAX = 2000
SECRET_PREFIX = "whsec_"
_SUBSCRIBED = "guardsvc.webhook_events"  # app.extensions: (monotonic time to read again, event types)


def checked_url(text):
    """``text`` when it is an http(s) address with a host and no credentials, else ValidationFailed."""
    url = (text or "").strip()
    try:
        parts = urlsplit(url)
        valid = (parts.scheme in ("http", "https") and bool(parts.hostname) and parts.username is None
                 and len(url) <= URL_MAX and not any(char.isspace() for char in url))
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        valid = False
    if not valid:
        raise ValidationFailed({"url": [messages.WEBHOOK_URL_INVALID]})
    return url


def checked_target(url):
    """``url`` (checked) when its host is public (``webhooks.targets``) or ``WEBHOOK_ALLOW_PRIVATE_TARGETS``
    allows any host, else ValidationFailed."""
    url = checked_url(url)
    if not current_app.config["WEBHOOK_ALLOW_PRIVATE_TARGETS"]:
        parts = urlsplit(url)
        try:
            check_new_target(parts.hostname, parts.port or default_port(parts.scheme))
        except PrivateTarget as refused:
            raise ValidationFailed({"url": [messages.WEBHOOK_URL_PRIVATE.format(address=refused.address)]}) from None
    return url


def checked_events(names):
    """The known event types among ``names`` (a comma-separated text or a list), in EVENTS order.

    Empty means every event; an unknown name is ValidationFailed.
    """
    if isinstance(names, str):
        names = names.split(",")
    wanted = {name.strip() for name in names or () if name.strip()}
    unknown = sorted(wanted - set(EVENTS))
    if unknown:
        raise ValidationFailed({"events": [messages.WEBHOOK_EVENTS_INVALID.format(
            unknown=", ".join(unknown), choices=", ".join(EVENTS))]})
    return [event for event in EVENTS if event in wanted] if wanted else list(EVENTS)


def new_secret():
    """A signing secret in the Standard Webhooks form: ``whsec_`` and base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def add_endpoint(url, events=None):
    """Add an endpoint for ``events`` (default: every event); returns (endpoint, secret), the secret only here."""
    secret = new_secret()
    endpoint = WebhookEndpoint(url=checked_target(url), events=",".join(checked_events(events)), secret=secret,
                               created_at=clock.utcnow())
    db.session.add(endpoint)
    db.session.flush()
    forget_subscriptions()
    return endpoint, secret


def list_endpoints():
    """Every endpoint, oldest first."""
    return db.session.scalars(select(WebhookEndpoint).order_by(WebhookEndpoint.id)).all()


def get_endpoint(endpoint_id):
    """The endpoint with this id, else NotFound."""
    endpoint = db.session.get(WebhookEndpoint, endpoint_id)
    if endpoint is None:
        raise NotFound(messages.WEBHOOK_NOT_FOUND)
    return endpoint


def remove_endpoint(endpoint_id):
    """Remove an endpoint and what was still queued for it; nothing more is sent there."""
    endpoint = get_endpoint(endpoint_id)
    db.session.execute(delete(HookDelivery).where(HookDelivery.endpoint_id == endpoint.id))
    db.session.delete(endpoint)
    db.session.flush()
    forget_subscriptions()
    return endpoint


def set_disabled(endpoint_id, disabled):
    """Pause (``disabled``) or resume an endpoint: a paused one gets no new events."""
    endpoint = get_endpoint(endpoint_id)
    endpoint.disabled = disabled
    db.session.flush()
    forget_subscriptions()
    return endpoint


def undelivered_counts():
    """``{(endpoint id, status): rows}`` of the rows waiting (``pending``, ``sending``) or given up on."""
    rows = db.session.execute(select(HookDelivery.endpoint_id, HookDelivery.status, func.count())
                              .where(HookDelivery.status.in_(("pending", "sending", "failed")))
                              .group_by(HookDelivery.endpoint_id, HookDelivery.status))
    return {(endpoint_id, status): count for endpoint_id, status, count in rows}


def reseal_secrets():
    """Seal every endpoint's secret again under the current SECRET_KEY (key rotation); the count."""
    return reseal_rows(WebhookEndpoint, "secret")


def subscribed_events():
    """The event types some enabled endpoint wants, as this process last read them (see the module's note)."""
    cached = current_app.extensions.get(_SUBSCRIBED)
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]
    events = frozenset(name for row in db.session.scalars(
        select(WebhookEndpoint.events).where(WebhookEndpoint.disabled.is_(False))) for name in row.split(","))
    current_app.extensions[_SUBSCRIBED] = (time.monotonic() + current_app.config["WEBHOOK_REFRESH_SECONDS"], events)
    return events


def forget_subscriptions():
    """Read the subscribed event types again at the next event (this process changed an endpoint)."""
    current_app.extensions.pop(_SUBSCRIBED, None)


def new_event_id():
    """A webhook-id: 72 random bits, short enough that log redaction (runs of 24 characters) leaves it readable."""
    return "msg_" + secrets.token_hex(9)


def _subscribed_to(event_type):
    """SQL: the endpoint is enabled and wants ``event_type``."""
    listed = (literal(",") + WebhookEndpoint.events + literal(",")).contains(f",{event_type},", autoescape=True)
    return WebhookEndpoint.disabled.is_(False), listed


def queue_event(event_type, describe):
    """Queue ``event_type`` for every enabled endpoint subscribed to it, in the caller's transaction.

    ``describe()`` returns the event's ``data``; it is called only when an
    endpoint wants the event, so an event nobody wants costs nothing. One
    INSERT ... SELECT stores a row per endpoint, holding the exact body that
    will be signed and sent. Returns the event id, or None when nobody wants it.
    """
    if event_type not in subscribed_events():
        return None
    now, event_id = clock.utcnow(), new_event_id()
    data = {**describe(), "site": current_app.config["BASE_URL"]}
    body = json.dumps({"type": event_type, "timestamp": clock.isoformat(now), "data": data},
                      ensure_ascii=False, separators=(",", ":"), default=messages.as_text)
    rows = select(WebhookEndpoint.id, literal(event_id), literal(event_type), literal(body), literal(now),
                  literal(now)).where(*_subscribed_to(event_type))
    db.session.execute(insert(HookDelivery).from_select(
        ["endpoint_id", "event_id", "event_type", "body", "next_attempt_at", "created_at"], rows))
    return event_id


def queue_job(event_type, body):
    """Queue one call that has no endpoint (an unban), in the caller's transaction."""
    now = clock.utcnow()
    db.session.add(HookDelivery(event_id=new_event_id(), event_type=event_type, body=body, status="pending",
                                attempts=0, next_attempt_at=now, created_at=now))
