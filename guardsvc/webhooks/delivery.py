"""Carrying out the queue: claim due rows (guardsvc.storage.queue), POST each webhook or run each unban, record.

A failure is tried again after a wait that starts at ``GUARDSVC_WEBHOOK_RETRY_SECONDS``
and doubles up to an hour, each wait varied by up to a fifth either way (so
the rows that failed together do not all come back at once). A webhook is
given up on (``failed``) after ``GUARDSVC_WEBHOOK_MAX_ATTEMPTS`` attempts; an
unban is tried until the command succeeds. A finished row keeps no body.
"""
import logging
from datetime import timedelta
from urllib.parse import urlsplit

from flask import current_app
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.storage import clock, queue
from guardsvc.webhooks.fail2ban import UnbanFailed, run_unban
from guardsvc.webhooks.models import UNBAN, HookDelivery, WebhookEndpoint
from guardsvc.webhooks.sending import DeliveryFailed, post, signed_headers

log = logging.getLogger("guardsvc.webhooks")
BATCH_SIZE = 20
MAX_BACKOFF = timedelta(hours=1)


def retry_delay(attempts):
    """The wait after ``attempts`` failed attempts: exponential backoff with jitter, about an hour at most."""
    first = timedelta(seconds=current_app.config["WEBHOOK_RETRY_SECONDS"])
    return queue.backoff(first, attempts, MAX_BACKOFF)


def _endpoints(rows):
    ids = {row.endpoint_id for row in rows if row.endpoint_id is not None}
    if not ids:
        return {}
    return {endpoint.id: endpoint for endpoint in db.session.scalars(
        select(WebhookEndpoint).where(WebhookEndpoint.id.in_(ids)))}


def _carry_out(row, endpoint):
    """Make the call ``row`` stands for; raises DeliveryFailed or UnbanFailed when it did not succeed."""
    if row.event_type == UNBAN:
        return run_unban(row.body)
    if endpoint is None or endpoint.disabled:
        raise DeliveryFailed("the endpoint was removed or disabled")
    headers = signed_headers(endpoint.secret, row.event_id, row.body, clock.utcnow())
    config = current_app.config
    return post(endpoint.url, row.body, headers, config["WEBHOOK_TIMEOUT_SECONDS"],
                allow_private=config["WEBHOOK_ALLOW_PRIVATE_TARGETS"])


def _gives_up(row, endpoint):
    if row.event_type == UNBAN:
        return False
    return endpoint is None or endpoint.disabled or row.attempts >= current_app.config["WEBHOOK_MAX_ATTEMPTS"]


def _name(row, endpoint):
    """How logs name a row: its event and where it goes (an endpoint by id and host, never its path)."""
    if row.event_type == UNBAN:
        return f"unban {row.id}"
    host = urlsplit(endpoint.url).netloc if endpoint else "removed endpoint"
    return f"{row.event_type} {row.event_id} to endpoint {row.endpoint_id} ({host})"


def _record_failure(row, endpoint, error, report):
    text = str(error)[:queue.ERROR_MAX] if isinstance(error, (DeliveryFailed, UnbanFailed)) else queue.error_text(error)
    if _gives_up(row, endpoint):
        log.error("webhooks: %s failed for good after %s attempt(s): %s", _name(row, endpoint), row.attempts, text)
        queue.finish(row, status="failed", last_error=text, body="")
        report.failed.append(row.id)
        return
    delay = retry_delay(row.attempts)
    log.warning("webhooks: %s failed (attempt %s), retry in %.0fs: %s", _name(row, endpoint), row.attempts,
                delay.total_seconds(), text)
    queue.finish(row, status="pending", last_error=text, next_attempt_at=clock.utcnow() + delay)
    report.retrying.append(row.id)


def deliver_batch(limit=BATCH_SIZE):
    """Claim one batch of due rows and carry each out; returns a queue.Report."""
    report = queue.Report()
    rows = queue.claim_due(HookDelivery, limit)  # the configured lease
    endpoints = _endpoints(rows)
    for row in rows:
        endpoint = endpoints.get(row.endpoint_id)
        try:
            _carry_out(row, endpoint)
        except Exception as exc:  # noqa: BLE001 - every failure is tried again later, none is lost
            _record_failure(row, endpoint, exc, report)
        else:
            queue.finish(row, status="delivered", delivered_at=clock.utcnow(), last_error=None, body="")
            report.sent.append(row.id)
    return report


def deliver_due(limit=BATCH_SIZE):
    """Carry out everything that is due now, batch after batch; one queue.Report."""
    return queue.drain(lambda: deliver_batch(limit))
